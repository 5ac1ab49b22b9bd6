"""Reversal to WAV: ours against ffmpeg forward (the floor), ffmpeg areverse, SoX reverse and our own
forward decode, for every --durations × --formats input. In BENCHMARKS.md its sections are Method,
Results and Targets, and its raw timings open the final list."""

import shutil

from ..audio import areverse_filter, pcm_md5
from ..cells import ratio, value
from ..console import show as show_table, text_table
from ..inputs import make_inputs, minutes_label, sox_can_read
from ..markdown import markdown_table, raw_line, verdict_lines
from ..runner import MIB, Command, log_walls, run_round_robin
from ..shell import log

NAME = "reverse"
HELP = "reverse (to WAV)"
DEFAULT = True  # run unless --tables says otherwise, and needed by a full --write

COMMANDS = ["ours", "fwd", "arev", "sox", "ours_fwd"]  # round-robin order
RSS_LIMIT_MIB = 64
RSS_GROWTH_MIB = 8
WALL_RATIO_LIMIT = 1.10
RATIO_DURATIONS = (10, 60)


def commands_for(binary, source, fmt, run_dir, sox_ok):
    def dirs(name):
        return run_dir / name / "out", run_dir / name / "tmp"

    made = []
    out, tmp = dirs("ours")
    made.append(Command("ours", [str(binary), "convert", str(source), str(out / "out.wav"), "--reverse", "-y",
                                 "--progress", "none"], out, tmp, out / "out.wav", True))
    out, tmp = dirs("fwd")
    made.append(Command("fwd", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(source), str(out / "out.wav")],
                        out, tmp, out / "out.wav", False))
    out, tmp = dirs("arev")
    made.append(Command("arev", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(source), "-af",
                                 areverse_filter(source), str(out / "out.wav")], out, tmp, out / "out.wav", False))
    if sox_ok:
        out, tmp = dirs("sox")
        # glibc's tmpfile() ignores TMPDIR, so SoX is also told --temp.
        made.append(Command("sox", ["sox", "--temp", str(tmp), str(source), str(out / "out.wav"), "reverse"],
                            out, tmp, out / "out.wav", False))
    out, tmp = dirs("ours_fwd")
    made.append(Command("ours_fwd", [str(binary), "convert", str(source), str(out / "out.wav"), "-y",
                                     "--progress", "none"], out, tmp, out / "out.wav", True))
    return {command.name: command for command in made}


def measure_input(binary, source, minutes, fmt, runs, work):
    run_dir = work / "run"
    commands = commands_for(binary, source, fmt, run_dir, sox_can_read(fmt))
    order = [commands[name] for name in COMMANDS if name in commands]
    run_round_robin(order, runs)
    ours, arev = commands["ours"], commands["arev"]
    exact = None
    if ours.failure is None and arev.failure is None:
        ours_md5, arev_md5 = pcm_md5(ours.output), pcm_md5(arev.output)
        exact = ours_md5 is not None and ours_md5 == arev_md5
    row = {"minutes": minutes, "format": fmt, "input": source.name, "size_mib": source.stat().st_size / MIB,
           "commands": commands, "exact": exact}
    log_walls(order)
    shutil.rmtree(run_dir, ignore_errors=True)
    return row


HEADERS = ["input", "s ours", "s fwd", "s arev", "s sox",
           "RSS ours", "RSS fwd", "RSS arev", "RSS sox", "tmp sox", "tmp ours",
           "ours÷fwd", "ours÷arev", "RSS ours-fwd", "bit-exact"]
LEGEND = ("s: median wall seconds; RSS: peak resident memory, MiB; tmp: peak temporary disk, MiB (ours: besides "
          "the output it writes); fwd = `ffmpeg -i X out.wav` (the floor), arev = `ffmpeg -af areverse`, "
          "ours-fwd = our forward conversion (the decode path alone).")


def cells(row):
    c = row["commands"]
    exact = {True: "yes", False: "NO", None: "NO (failed)"}[row["exact"]]
    return [f"{row['format']} {minutes_label(row['minutes'])}",
            value(c, "ours", "wall", 3), value(c, "fwd", "wall", 3), value(c, "arev", "wall", 3),
            value(c, "sox", "wall", 3), value(c, "ours", "peak_rss", 1), value(c, "fwd", "peak_rss", 1),
            value(c, "arev", "peak_rss", 1), value(c, "sox", "peak_rss", 1), value(c, "sox", "peak_temp", 1),
            value(c, "ours", "peak_temp", 1), ratio(c, "ours", "fwd"), ratio(c, "ours", "arev"),
            value(c, "ours_fwd", "peak_rss", 1), exact]


def targets(rows, formats):
    """[(verdict, text)] for the issue's targets."""
    by_key = {(row["minutes"], row["format"]): row for row in rows}
    results = []

    # 1. wall time against the forward-decode floor, at 10 and 60 minutes.
    checked, misses = [], []
    for minutes in RATIO_DURATIONS:
        for fmt in formats:
            row = by_key.get((minutes, fmt))
            if row is None:
                continue
            ours, fwd = row["commands"]["ours"].wall, row["commands"]["fwd"].wall
            ratio = ours / fwd if ours is not None and fwd else None
            text = f"{fmt} {minutes_label(minutes)} " + ("failed" if ratio is None else f"{ratio:.2f}×")
            checked.append(text)
            if ratio is None or ratio > WALL_RATIO_LIMIT:
                misses.append(text)
    label = f"ours wall ≤ {WALL_RATIO_LIMIT:.2f}× ffmpeg forward at 10 and 60 min"
    if not checked:
        results.append(("NOT MEASURED", f"{label} (run with --durations including 10 or 60)"))
    else:
        missing = [f"{fmt} {minutes_label(m)}" for m in RATIO_DURATIONS for fmt in formats if (m, fmt) not in by_key]
        note = f"; not measured: {', '.join(missing)}" if missing else ""
        results.append(("MISS" if misses else "PASS", f"{label}: {', '.join(checked)}{note}"))

    # 2. peak RSS.
    over = []
    for row in rows:
        rss = row["commands"]["ours"].peak_rss
        if rss is None or rss > RSS_LIMIT_MIB:
            over.append(f"{row['format']} {minutes_label(row['minutes'])} "
                        + ("failed" if rss is None else f"{rss:.1f} MiB"))
    worst = max((row["commands"]["ours"].peak_rss or 0 for row in rows), default=0)
    results.append(("MISS" if over else "PASS",
                    f"ours peak RSS ≤ {RSS_LIMIT_MIB} MiB for every input (highest {worst:.1f} MiB)"
                    + (f"; over: {', '.join(over)}" if over else "")))

    # 3. flat memory: 60 min against 1 min.
    pairs, bad = [], []
    for fmt in formats:
        short, long = by_key.get((1, fmt)), by_key.get((60, fmt))
        if short is None or long is None:
            continue
        a, b = short["commands"]["ours"].peak_rss, long["commands"]["ours"].peak_rss
        if a is None or b is None:
            bad.append(f"{fmt} failed")
            continue
        pairs.append(f"{fmt} {b - a:+.1f}")
        if abs(b - a) > RSS_GROWTH_MIB:
            bad.append(fmt)
    label = f"ours 60-min RSS within {RSS_GROWTH_MIB} MiB of 1-min RSS"
    if not pairs and not bad:
        results.append(("NOT MEASURED", f"{label} (needs --durations with 1 and 60)"))
    else:
        results.append(("MISS" if bad else "PASS", f"{label}: {', '.join(pairs)} MiB"
                        + (f"; failing: {', '.join(bad)}" if bad else "")))

    # 4. bit-exact.
    wrong = [f"{row['format']} {minutes_label(row['minutes'])}" for row in rows if row["exact"] is not True]
    results.append(("MISS" if wrong else "PASS", f"ours bit-exact with ffmpeg areverse for all {len(rows)} inputs"
                    + (f"; NOT for: {', '.join(wrong)}" if wrong else "")))
    return results


METHOD = """\
Each input is a stereo 44.1 kHz signal made with the ffmpeg CLI (a repeating linear chirp per
channel plus pink/white noise), written once as 16-bit WAV and encoded from it to MP3 (libmp3lame
192k), M4A (ffmpeg aac 192k) and FLAC. For each input every command runs once untimed (so all
of them find the input in the page cache), then the commands alternate round-robin for N timed
runs: ours reversing (`reverse-audio convert X out.wav --reverse -y --progress none`), ffmpeg
decoding forward (`ffmpeg -nostdin -v error -y -i X out.wav`, the floor), ffmpeg reversing
(`-af areverse`), `sox --temp T X out.wav reverse` (SoX reads no M4A), and ours forward (the
decode path's memory). Each run starts with empty output and temp folders, after a `sync`.
Wall time is the median over the runs (monotonic clock around `/usr/bin/time`); RSS is the
highest peak RSS `/usr/bin/time -f '%e %M'` reported. Temp disk: while a command runs, a thread
sums every ~20 ms the allocated size (st_blocks) of the files in its watched folders plus the
files its processes hold open there that are already unlinked (SoX unlinks its temp files at
once; glibc's tmpfile ignores TMPDIR, hence `--temp`); the table gives the highest sum. SoX's
watched folder is its temp folder; ours are TMPDIR and the output's folder, less the finished
output's size, so the figure is what ours needs besides the output it writes (its
`.NAME.*.partial` file becomes the output). Short-lived files between two polls can be missed.
Bit-exact: the MD5 of `ffmpeg -i F -f s16le -acodec pcm_s16le -` is the same for our output and
areverse's. An M4A ends where its container says (the edit list's end, as Apple's players stop),
so its areverse runs as `-af atrim=end_sample=N,areverse` with N its stated length; the trim costs
ffmpeg nothing measurable, and without it areverse would start with the encoder's end padding."""


def prepare(context):
    args = context.args
    context.inputs.update(make_inputs(context.work, args.duration_list, args.format_list))


def measure(context):
    args = context.args
    rows = []
    for minutes in args.duration_list:
        for fmt in args.format_list:
            source = context.inputs[(minutes, fmt)]
            log(f"== {fmt} {minutes_label(minutes)} ({source.stat().st_size / MIB:.1f} MiB): "
                f"warm-up, then {args.runs} round-robin runs")
            rows.append(measure_input(context.binary, source, minutes, fmt, args.runs, context.work))
    return {"rows": rows, "verdicts": targets(rows, args.format_list) if rows else []}


def show(context, result):
    if result["rows"]:
        show_table(f"Reversal to WAV ({context.args.runs} timed runs each).", LEGEND,
                   text_table(result["rows"], HEADERS, cells), result["verdicts"])


def section(context, result):
    return ["## Method", "", METHOD, "",
            "## Results", "",
            LEGEND, "",
            markdown_table(result["rows"], HEADERS, cells), "",
            "## Targets", "",
            *verdict_lines(result["verdicts"])]


def raw_lines(result):
    return [raw_line(f"{row['format']} {minutes_label(row['minutes'])}", row["commands"]) for row in result["rows"]]
