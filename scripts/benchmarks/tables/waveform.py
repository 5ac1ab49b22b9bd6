"""Waveform data for web players: `waveform X song.dat --zoom 256,512,1024,2048,4096` (five audiowaveform
`.dat` levels from one decoding pass) on --waveform-minutes inputs, against one forward decode by the ffmpeg
CLI (`ffmpeg -i X -f s16le -y /dev/null`): the target is at most 1.1× its time, in flat memory."""

import math
import shutil
import struct

from ..cells import pass_or_miss, ratio, value
from ..console import show as show_table, text_table
from ..inputs import make_inputs, minutes_label
from ..markdown import kept_section, markdown_table, measured_line, raw_line, verdict_lines
from ..runner import Command, cpu_seconds, log_walls, run_round_robin
from ..shell import log

NAME = "waveform"
HELP = "waveform (.dat data at five zoom levels against one ffmpeg decode)"
REPLACEABLE = True  # `--write` with only such tables replaces just their sections of BENCHMARKS.md
HEADING = "## Waveform data at five zoom levels"

ZOOMS = [256, 512, 1024, 2048, 4096]
RATIO_LIMIT = 1.1  # our time over one forward decode's
RSS_LIMIT_MIB = 100  # flat memory: the process, whatever the length (an hour decoded is 605 MiB)


def dat_header(path):
    """(samples per pixel, pixels) from an audiowaveform .dat header, or None when unreadable."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(20)
    except OSError:
        return None
    if len(header) < 20:
        return None
    _version, _flags, _rate, samples_per_pixel, pixels = struct.unpack("<iIiiI", header)
    return samples_per_pixel, pixels


def levels_consistent(out_dir):
    """True when every level's file is there, names its zoom, and holds the pixels the finest level implies
    (a level of N frames a pixel has ceil(pixels of 256 × 256 / N), its last pixel partial)."""
    headers = {zoom: dat_header(out_dir / f"song-{zoom}.dat") for zoom in ZOOMS}
    if any(header is None or header[0] != zoom for zoom, header in headers.items()):
        return False
    finest = headers[ZOOMS[0]][1]
    return all(headers[zoom][1] == math.ceil(finest * ZOOMS[0] / zoom) for zoom in ZOOMS[1:]) and finest > 0


def measure_waveform(binary, source, minutes, fmt, runs, work):
    run_dir = work / "run"
    out, tmp = run_dir / "ours" / "out", run_dir / "ours" / "tmp"
    commands = {"ours": Command("ours", [str(binary), "waveform", str(source), str(out / "song.dat"), "--zoom",
                                         ",".join(map(str, ZOOMS)), "-y"], out, tmp, None, False)}
    out, tmp = run_dir / "decode" / "out", run_dir / "decode" / "tmp"
    commands["decode"] = Command("decode", ["ffmpeg", "-nostdin", "-v", "error", "-i", str(source), "-f", "s16le",
                                            "-y", "/dev/null"], out, tmp, None, False)
    order = list(commands.values())
    run_round_robin(order, runs)
    consistent = commands["ours"].failure is None and levels_consistent(commands["ours"].out_dir)
    cpu = cpu_seconds(order, runs)
    log_walls(order)
    shutil.rmtree(run_dir, ignore_errors=True)
    return {"minutes": minutes, "format": fmt, "commands": commands, "cpu": cpu, "consistent": consistent,
            "label": f"{fmt} {minutes_label(minutes)}"}


WAVEFORM_HEADERS = ["input", "s ours (5 levels)", "s ffmpeg decode", "ours÷decode", "CPU s ours", "CPU s decode",
                    "CPU ours÷decode", "RSS ours", "RSS decode", "levels consistent"]
WAVEFORM_LEGEND = ("s: median wall seconds; CPU s: median user + system seconds; RSS: peak resident memory, MiB; "
                   f"ours = `reverse-audio waveform X song.dat --zoom {','.join(map(str, ZOOMS))}` (five .dat files, "
                   "song-256.dat … song-4096.dat, from one decoding pass), decode = `ffmpeg -i X -f s16le -y /dev/null` "
                   "(one forward decode to 16-bit samples, thrown away); levels consistent: every level names its "
                   "zoom and holds the pixels the finest level implies.")


def cpu_cell(row, name):
    seconds = row["cpu"].get(name)
    return "-" if seconds is None else f"{seconds:.2f}"


def cpu_ratio(row):
    ours, decode = row["cpu"].get("ours"), row["cpu"].get("decode")
    return "-" if not ours or not decode else f"{ours / decode:.2f}×"


def waveform_cells(row):
    c = row["commands"]
    return [row["label"], value(c, "ours", "wall", 3), value(c, "decode", "wall", 3), ratio(c, "ours", "decode"),
            cpu_cell(row, "ours"), cpu_cell(row, "decode"), cpu_ratio(row), value(c, "ours", "peak_rss", 1),
            value(c, "decode", "peak_rss", 1), "yes" if row["consistent"] else "NO"]


def waveform_targets(rows):
    if not rows:
        return []
    slow, shown, heavy, inconsistent = [], [], [], []
    for row in rows:
        c = row["commands"]
        ours, decode, rss = c["ours"].wall, c["decode"].wall, c["ours"].peak_rss
        text = f"{row['format']} " + ("failed" if ours is None or not decode else f"{ours / decode:.2f}×")
        shown.append(text)
        if ours is None or not decode or ours > RATIO_LIMIT * decode:
            slow.append(text)
        if rss is None or rss > RSS_LIMIT_MIB:
            heavy.append(f"{row['format']} " + ("failed" if rss is None else f"{rss:.1f} MiB"))
        if not row["consistent"]:
            inconsistent.append(row["format"])
    peaks = ", ".join(f"{row['format']} {value(row['commands'], 'ours', 'peak_rss', 1)}" for row in rows)
    return [(pass_or_miss(not slow), f"five zoom levels take at most {RATIO_LIMIT:g}× one ffmpeg forward decode's "
             f"time: {', '.join(shown)}"),
            (pass_or_miss(not heavy), f"flat memory: peak RSS under {RSS_LIMIT_MIB} MiB for an hour (MiB: {peaks})"),
            (pass_or_miss(not inconsistent), "every level's file is consistent with the finest"
             + (f"; NOT for: {', '.join(inconsistent)}" if inconsistent else ""))]


def add_arguments(parser):
    parser.add_argument("--waveform-minutes", type=float, default=60,
                        help="length of the waveform table's inputs, in minutes (default 60)")


def check_arguments(parser, args):
    if args.waveform_minutes <= 0:
        parser.error("--waveform-minutes: must be positive")
    if args.waveform_minutes == int(args.waveform_minutes):
        args.waveform_minutes = int(args.waveform_minutes)


def prepare(context):
    args = context.args
    context.inputs.update(make_inputs(context.work, [args.waveform_minutes], args.format_list))


def measure(context):
    args = context.args
    rows = []
    for fmt in args.format_list:
        source = context.inputs[(args.waveform_minutes, fmt)]
        log(f"== waveform data at {len(ZOOMS)} zoom levels of {source.name}: warm-up, then {args.runs} round-robin "
            "runs, then as many for CPU time")
        rows.append(measure_waveform(context.binary, source, args.waveform_minutes, fmt, args.runs, context.work))
    return {"rows": rows, "verdicts": waveform_targets(rows)}


def show(context, result):
    show_table(f"Waveform data at {len(ZOOMS)} zoom levels of {minutes_label(context.args.waveform_minutes)} inputs "
               f"({context.args.runs} timed runs each).", WAVEFORM_LEGEND,
               text_table(result["rows"], WAVEFORM_HEADERS, waveform_cells), result["verdicts"])


def written_options(context, result):
    return f"--waveform-minutes {context.args.waveform_minutes:g}"


def section(context, result):
    if result is None:
        kept = kept_section(HEADING, "run with --tables waveform to measure it")
        return kept or [HEADING, "", "Not measured yet (run `scripts/bench --tables waveform --write`)."]
    return [HEADING, "", measured_line(context.loads), "", WAVEFORM_LEGEND, "",
            markdown_table(result["rows"], WAVEFORM_HEADERS, waveform_cells), "",
            *verdict_lines(result["verdicts"]), "",
            "Raw timings (seconds, in run order):", "",
            *[raw_line(f"waveform, {row['label']}", row["commands"]) for row in result["rows"]]]
