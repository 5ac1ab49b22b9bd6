"""Reversal into FLAC and M4A (AAC): ours against ffmpeg forward and ffmpeg areverse into the same
format and codec, for each duration and --encode-pairs; FLAC outputs checked against areverse's
samples, AAC outputs' frame counts against the input's."""

import shutil

from ..audio import areverse_filter, decoded_frames, pcm_md5, probe
from ..cells import pass_or_miss, ratio, value
from ..console import show as show_table, text_table
from ..inputs import FORMATS, make_inputs, minutes_label, warm_cache
from ..markdown import markdown_table, raw_line, verdict_lines
from ..runner import MIB, Command, log_walls, run_round_robin
from ..shell import log
from .reverse import RSS_LIMIT_MIB

NAME = "encode"
HELP = "encode (to FLAC/M4A)"
DEFAULT = True
HEADING = "## Reversal to FLAC and M4A"

ENCODE_TARGETS = ["flac", "m4a"]
ENCODE_PAIRS = "flac:flac,m4a:m4a,wav:flac"  # input format:output format
AAC_BITRATE = "192k"
AAC_FRAME_TOLERANCE = 2048  # AAC outputs: decoded frames within this of the input's


def output_codec(target):
    """ffmpeg's options for an output of `target` format (FLAC in s16, as ours writes by default; AAC 192k)."""
    return {"flac": ["-c:a", "flac", "-sample_fmt", "s16"], "m4a": ["-c:a", "aac", "-b:a", AAC_BITRATE]}[target]


def ours_codec(target):
    # Ours picks ALAC for .m4a from a lossless input, so AAC is asked for; 192k like ffmpeg's.
    return ["--codec", "aac", "--bitrate", AAC_BITRATE] if target == "m4a" else []


def encode_label(minutes, source_fmt, target):
    return f"{source_fmt} {minutes_label(minutes)} → {target}" + (" (AAC)" if target == "m4a" else "")


def encode_commands(binary, source, target, run_dir):
    def dirs(name):
        return run_dir / name / "out", run_dir / name / "tmp"

    name = f"out.{target}"
    made = []
    out, tmp = dirs("ours")
    made.append(Command("ours", [str(binary), "convert", str(source), str(out / name), "--reverse", "-y",
                                 "--progress", "none", *ours_codec(target)], out, tmp, out / name, True))
    out, tmp = dirs("fwd")
    made.append(Command("fwd", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(source), *output_codec(target),
                                str(out / name)], out, tmp, out / name, False))
    out, tmp = dirs("arev")
    made.append(Command("arev", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(source), "-af",
                                 areverse_filter(source), *output_codec(target), str(out / name)], out, tmp, out / name,
                        False))
    return {command.name: command for command in made}


def measure_encode(binary, source, minutes, source_fmt, target, runs, work):
    run_dir = work / "run"
    commands = encode_commands(binary, source, target, run_dir)
    order = list(commands.values())
    warm_cache(source)  # encoding is slow: no untimed warm-up runs, just the input read into the page cache
    run_round_robin(order, runs, warm_up=False)
    ours, arev = commands["ours"], commands["arev"]
    check = {"kind": target}
    if ours.failure is None:
        if target == "flac":
            ours_md5 = pcm_md5(ours.output)
            arev_md5 = pcm_md5(arev.output) if arev.failure is None else None
            check["ok"] = ours_md5 is not None and ours_md5 == arev_md5
            check["text"] = "yes" if check["ok"] else ("NO" if arev_md5 else "NO (no areverse output)")
        else:
            channels = int(probe(source).get("channels", 0) or 0)
            expected = decoded_frames(source, channels)
            got = decoded_frames(ours.output, channels)
            theirs = decoded_frames(arev.output, channels) if arev.failure is None else None
            check["ok"] = None not in (expected, got) and abs(got - expected) <= AAC_FRAME_TOLERANCE
            if None in (expected, got):
                check["text"] = "NO (undecodable)"
            else:
                check["text"] = (("yes" if check["ok"] else "NO") + f" (Δ {got - expected:+d} frames"
                                 + (f"; arev Δ {theirs - expected:+d}" if theirs is not None else "") + ")")
    else:
        check.update(ok=None, text="NO (failed)")
    row = {"minutes": minutes, "format": source_fmt, "target": target, "commands": commands, "check": check,
           "label": encode_label(minutes, source_fmt, target)}
    log_walls(order)
    shutil.rmtree(run_dir, ignore_errors=True)
    return row


ENCODE_HEADERS = ["input → output", "s ours", "s fwd", "s arev", "RSS ours", "RSS fwd", "RSS arev", "tmp ours",
                  "ours÷fwd", "ours÷arev", "RSS ours÷arev", "correct"]
ENCODE_LEGEND = ("s: median wall seconds; RSS: peak resident memory, MiB; tmp ours: peak size of our temporary files, "
                 "MiB (the reversed PCM it keeps in an unlinked file beside the output, plus anything in TMPDIR); fwd = `ffmpeg -i X "
                 "out.EXT` with the same codec (decode and encode, the floor), arev = `ffmpeg -i X -af areverse "
                 "out.EXT`; correct: a FLAC output decodes to the same samples as arev's (MD5 of s16le), an AAC "
                 f"output to within {AAC_FRAME_TOLERANCE} frames of the input's frame count (Δ = output - input).")


def encode_cells(row):
    c = row["commands"]
    return [row["label"], value(c, "ours", "wall", 3), value(c, "fwd", "wall", 3), value(c, "arev", "wall", 3),
            value(c, "ours", "peak_rss", 1), value(c, "fwd", "peak_rss", 1), value(c, "arev", "peak_rss", 1),
            value(c, "ours", "peak_temp_files", 1), ratio(c, "ours", "fwd"), ratio(c, "ours", "arev"),
            ratio(c, "ours", "arev", "peak_rss"), row["check"]["text"]]


def encode_targets(rows):
    if not rows:
        return []
    wrong = [row["label"] for row in rows if row["check"]["ok"] is not True]
    results = [(pass_or_miss(not wrong), "ours correct for every output (FLAC: same samples as areverse; AAC: within "
                f"{AAC_FRAME_TOLERANCE} frames of the input)" + (f"; NOT for: {', '.join(wrong)}" if wrong else ""))]
    rss = [(row["label"], row["commands"]["ours"].peak_rss) for row in rows]
    over = [f"{label} " + ("failed" if value is None else f"{value:.1f} MiB")
            for label, value in rss if value is None or value > RSS_LIMIT_MIB]
    worst = max((value or 0 for _, value in rss), default=0)
    results.append((pass_or_miss(not over), f"ours peak RSS ≤ {RSS_LIMIT_MIB} MiB (the WAV table's bound) for every "
                    f"output (highest {worst:.1f} MiB)" + (f"; over: {', '.join(over)}" if over else "")))
    return results


ENCODE_METHOD = f"""\
Reversing into an encoded format, ours first writes the reversed PCM into an unnamed temporary file
beside the output (created and unlinked at once), then encodes it forwards. The inputs above are
reversed into the formats `--encode-pairs` asks for (default flac→flac, m4a→m4a, wav→flac): ours
`reverse-audio convert X out.flac --reverse -y --progress none` (for M4A also `--codec aac
--bitrate {AAC_BITRATE}`), ffmpeg forward into the same format and codec (`ffmpeg -i X out.flac`: decode
plus encode, the floor) and `ffmpeg -i X -af areverse out.flac`; ffmpeg's FLAC with `-sample_fmt
s16` (ours writes s16 unless told otherwise), its M4A with `-c:a aac -b:a {AAC_BITRATE}`. Encoding is slow,
so instead of untimed warm-up runs the input is read once into the page cache; then the three
alternate round-robin for N timed runs (`--encode-runs`), measured as above, except that "tmp
ours" is the peak size of our temporary files alone (TMPDIR's files plus the unlinked files it
holds open in the output's folder, seen through /proc/PID/fd as SoX's are): the peak beyond the
finished output would hide the part of the output still unwritten while the temporary file
exists. Correct: a FLAC output decodes (MD5 of `ffmpeg -i F -f s16le`) to the same samples as
areverse's; AAC is lossy, so an AAC output must decode to within {AAC_FRAME_TOLERANCE} frames of the input's
decoded frame count."""


def add_arguments(parser):
    parser.add_argument("--encode-pairs", default=ENCODE_PAIRS,
                        help=f"input:output formats reversed into FLAC/M4A (default {ENCODE_PAIRS}); "
                             "outputs: flac or m4a (AAC)")
    parser.add_argument("--encode-runs", type=int, help="timed runs for the FLAC/M4A table (default: --runs)")


def check_arguments(parser, args):
    args.pair_list = []
    for item in (item.strip() for item in args.encode_pairs.split(",")):
        source, _, target = item.partition(":")
        if source not in FORMATS or target not in ENCODE_TARGETS:
            parser.error(f"--encode-pairs: {item!r} is not INPUT:OUTPUT with INPUT in {','.join(FORMATS)} and "
                         f"OUTPUT in {','.join(ENCODE_TARGETS)}")
        args.pair_list.append((source, target))
    if args.encode_runs is None:
        args.encode_runs = args.runs
    if args.encode_runs < 1:
        parser.error("--encode-runs and --rf64-runs must be at least 1")


def prepare(context):
    args = context.args
    context.inputs.update(make_inputs(context.work, args.duration_list,
                                      sorted({source for source, _ in args.pair_list})))


def measure(context):
    args = context.args
    rows = []
    for minutes in args.duration_list:
        for source_fmt, target in args.pair_list:
            source = context.inputs[(minutes, source_fmt)]
            log(f"== {encode_label(minutes, source_fmt, target)} ({source.stat().st_size / MIB:.1f} MiB): "
                f"{args.encode_runs} round-robin runs")
            rows.append(measure_encode(context.binary, source, minutes, source_fmt, target, args.encode_runs,
                                       context.work))
    return {"rows": rows, "verdicts": encode_targets(rows)}


def show(context, result):
    if result["rows"]:
        show_table(f"Reversal to FLAC and M4A ({context.args.encode_runs} timed runs each).", ENCODE_LEGEND,
                   text_table(result["rows"], ENCODE_HEADERS, encode_cells), result["verdicts"])


def written_options(context, result):
    return f"--encode-pairs {context.args.encode_pairs} --encode-runs {context.args.encode_runs}"


def section(context, result):
    return [HEADING, "",
            ENCODE_METHOD, "",
            ENCODE_LEGEND, "",
            markdown_table(result["rows"], ENCODE_HEADERS, encode_cells), "",
            *verdict_lines(result["verdicts"])]


def raw_lines(result):
    return [raw_line(row["label"], row["commands"]) for row in result["rows"]]
