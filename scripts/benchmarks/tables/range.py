"""A 1-second range from the middle of --range-minutes inputs: ours against our full forward decode
(the target: under 5% of its time), our start-up alone, ffmpeg -ss and ffmpeg atrim (the exact
oracle, compared sample by sample)."""

import shutil

from ..audio import compare_pcm, probe
from ..cells import pass_or_miss, ratio, value
from ..console import show as show_table, text_table
from ..inputs import make_inputs, minutes_label
from ..markdown import markdown_table, raw_line, verdict_lines
from ..runner import Command, log_walls, run_round_robin
from ..shell import log

NAME = "range"
HELP = "range (1 s from the middle)"
DEFAULT = True
HEADING = "## A 1-second range"

RANGE_SECONDS = 1
RANGE_PERCENT_LIMIT = 5.0  # the range's wall time, in % of our full forward decode


def range_commands(binary, source, start_frame, end_frame, rate, run_dir):
    def dirs(name):
        return run_dir / name / "out", run_dir / name / "tmp"

    start_seconds, seconds = start_frame / rate, (end_frame - start_frame) / rate
    made = []
    out, tmp = dirs("range")
    made.append(Command("range", [str(binary), "convert", str(source), str(out / "out.wav"), "--start",
                                  f"{start_seconds:g}", "--duration", f"{seconds:g}", "-y", "--progress", "none"],
                        out, tmp, out / "out.wav", True))
    out, tmp = dirs("ours_fwd")
    made.append(Command("ours_fwd", [str(binary), "convert", str(source), str(out / "out.wav"), "-y",
                                     "--progress", "none"], out, tmp, out / "out.wav", True))
    out, tmp = dirs("startup")  # the process's fixed cost: load, link FFmpeg's libraries, exit
    made.append(Command("startup", [str(binary), "--version"], out, tmp, None, False))
    out, tmp = dirs("seek")
    made.append(Command("seek", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-ss", f"{start_seconds:g}",
                                 "-t", f"{seconds:g}", "-i", str(source), str(out / "out.wav")],
                        out, tmp, out / "out.wav", False))
    out, tmp = dirs("atrim")
    made.append(Command("atrim", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(source), "-af",
                                  f"atrim=start_sample={start_frame}:end_sample={end_frame}", str(out / "out.wav")],
                        out, tmp, out / "out.wav", False))
    return {command.name: command for command in made}


def measure_range(binary, source, minutes, fmt, runs, work):
    rate = int(probe(source).get("sample_rate", 44100) or 44100)
    start_frame = round(minutes * 60 / 2 * rate)  # the middle: 1800 s of a 60-minute file
    end_frame = start_frame + RANGE_SECONDS * rate
    run_dir = work / "run"
    commands = range_commands(binary, source, start_frame, end_frame, rate, run_dir)
    order = list(commands.values())
    run_round_robin(order, runs)
    ours, seek, oracle = commands["range"], commands["seek"], commands["atrim"]
    exact = seek_exact = None
    if oracle.failure is None:
        if ours.failure is None:
            exact = compare_pcm(ours.output, oracle.output)
        if seek.failure is None:
            seek_exact = compare_pcm(seek.output, oracle.output)
    row = {"minutes": minutes, "format": fmt, "start": start_frame / rate, "start_frame": start_frame,
           "commands": commands, "exact": exact, "seek_exact": seek_exact,
           "label": f"{fmt} {minutes_label(minutes)}"}
    log_walls(order)
    shutil.rmtree(run_dir, ignore_errors=True)
    return row


RANGE_HEADERS = ["input", "start s", "s range", "s ours-fwd", "s start-up", "s seek", "s atrim", "range % of ours-fwd",
                 "range÷seek", "range÷atrim", "RSS range", "RSS seek", "RSS atrim", "RSS range÷seek",
                 "range = atrim", "seek = atrim"]
RANGE_LEGEND = (f"s: median wall seconds; RSS: peak resident memory, MiB; range = ours `convert X out.wav --start S "
                f"--duration {RANGE_SECONDS}`, ours-fwd = ours converting the whole file forward, start-up = "
                "`reverse-audio --version` (the process's fixed cost), seek = `ffmpeg -ss S "
                f"-t {RANGE_SECONDS} -i X out.wav` (input seeking), atrim = `ffmpeg -i X -af atrim=start_sample=A:"
                "end_sample=B out.wav` (exact, decodes everything before the range, the oracle); = atrim: the decoded "
                "s16 samples are identical (yes), or how far they are off (max |Δ| of a sample, in 16-bit steps; "
                "frames when the lengths differ); AAC (m4a) need not be bit-exact away from the start (noise "
                "substitution), so it gets no verdict: bit-exact, or its max |Δ|.")


def describe_match(match, aac):
    if match is None:
        return "failed"
    frames = "" if match["same_length"] else f"{match['samples'][0] // 2} vs {match['samples'][1] // 2} frames, "
    if aac:
        return "bit-exact" if match["equal"] else f"{frames}max |Δ| {match['max_diff']}"
    return "yes" if match["equal"] else f"NO ({frames}max |Δ| {match['max_diff']})"


def range_percent(row):
    c = row["commands"]
    ours, full = c["range"].wall, c["ours_fwd"].wall
    return None if ours is None or not full else 100 * ours / full


def range_cells(row):
    c = row["commands"]
    percent = range_percent(row)
    aac = row["format"] == "m4a"
    return [row["label"], f"{row['start']:g}", value(c, "range", "wall", 3), value(c, "ours_fwd", "wall", 3),
            value(c, "startup", "wall", 3), value(c, "seek", "wall", 3), value(c, "atrim", "wall", 3),
            "-" if percent is None else f"{percent:.1f}%", ratio(c, "range", "seek"), ratio(c, "range", "atrim"),
            value(c, "range", "peak_rss", 1), value(c, "seek", "peak_rss", 1), value(c, "atrim", "peak_rss", 1),
            ratio(c, "range", "seek", "peak_rss"), describe_match(row["exact"], aac),
            describe_match(row["seek_exact"], aac)]


def range_targets(rows, range_minutes):
    if not rows:
        return []
    note = "" if range_minutes == 60 else f" (measured on {minutes_label(range_minutes)} inputs; the target is for 60)"
    shown, misses = [], []
    for row in rows:
        percent = range_percent(row)
        text = f"{row['format']} " + ("failed" if percent is None else f"{percent:.1f}%")
        startup, full = row["commands"]["startup"].wall, row["commands"]["ours_fwd"].wall
        if percent is not None and percent >= RANGE_PERCENT_LIMIT and startup and full:
            text += f" (start-up alone {100 * startup / full:.1f}%)"
        shown.append(text)
        if percent is None or percent >= RANGE_PERCENT_LIMIT:
            misses.append(text)
    results = [(pass_or_miss(not misses), f"a {RANGE_SECONDS}-second range from the middle takes < "
                f"{RANGE_PERCENT_LIMIT:g}% of our full forward decode's time{note}: {', '.join(shown)}")]
    exact_rows = [row for row in rows if row["format"] != "m4a"]
    if exact_rows:
        wrong = [row["format"] for row in exact_rows if not (row["exact"] and row["exact"]["equal"])]
        results.append((pass_or_miss(not wrong), "the range equals ffmpeg atrim's samples for "
                        + ", ".join(row["format"] for row in exact_rows)
                        + (f"; NOT for: {', '.join(wrong)}" if wrong else "")))
    for row in rows:
        if row["format"] == "m4a":
            results.append(("INFO", "m4a (AAC) range against atrim: " + describe_match(row["exact"], True)
                            + "; ffmpeg -ss against atrim: " + describe_match(row["seek_exact"], True)))
    return results


RANGE_METHOD = f"""\
From each input of `--range-minutes` (default 60) minutes, a {RANGE_SECONDS}-second range from the middle
(1800 s at 60 minutes): ours `reverse-audio convert X out.wav --start S --duration {RANGE_SECONDS}` against
ours converting the whole file forward (the target: the range in under {RANGE_PERCENT_LIMIT:g}% of that),
`reverse-audio --version` (the fixed cost of starting the process and linking FFmpeg's libraries,
which no range can go below), ffmpeg input seeking (`ffmpeg -ss S -t {RANGE_SECONDS} -i X out.wav`: fast, not
frame-exact) and ffmpeg's exact way, `ffmpeg -i X -af atrim=start_sample=A:end_sample=B out.wav`,
which decodes everything before the range (it counts decoded samples; `atrim=start=` would count
timestamps, which an MP3's encoder-delay start time shifts). One untimed warm-up each, then N
round-robin runs as above. The atrim output is the oracle: ours and ffmpeg -ss are compared with
it after decoding each to s16."""


def add_arguments(parser):
    parser.add_argument("--range-minutes", type=float, default=60,
                        help="length of the inputs the 1-second range is cut from, in minutes (default 60)")


def check_arguments(parser, args):
    if args.range_minutes * 60 < 2 * RANGE_SECONDS + 2:
        parser.error(f"--range-minutes: too short for a {RANGE_SECONDS}-second range from the middle")
    if args.range_minutes == int(args.range_minutes):
        args.range_minutes = int(args.range_minutes)


def prepare(context):
    args = context.args
    context.inputs.update(make_inputs(context.work, [args.range_minutes], args.format_list))


def measure(context):
    args = context.args
    rows = []
    for fmt in args.format_list:
        source = context.inputs[(args.range_minutes, fmt)]
        log(f"== {RANGE_SECONDS}-second range from the middle of {source.name}: warm-up, then {args.runs} "
            "round-robin runs")
        rows.append(measure_range(context.binary, source, args.range_minutes, fmt, args.runs, context.work))
    return {"rows": rows, "verdicts": range_targets(rows, args.range_minutes)}


def show(context, result):
    args = context.args
    if result["rows"]:
        show_table(f"A {RANGE_SECONDS}-second range from the middle of {minutes_label(args.range_minutes)} inputs "
                   f"({args.runs} timed runs each).", RANGE_LEGEND,
                   text_table(result["rows"], RANGE_HEADERS, range_cells), result["verdicts"])


def written_options(context, result):
    return f"--range-minutes {context.args.range_minutes:g}"


def section(context, result):
    return [HEADING, "",
            RANGE_METHOD, "",
            RANGE_LEGEND, "",
            markdown_table(result["rows"], RANGE_HEADERS, range_cells), "",
            *verdict_lines(result["verdicts"])]


def raw_lines(result):
    return [raw_line(f"range, {row['label']}", row["commands"]) for row in result["rows"]]
