"""A long reversal into RF64 (--rf64; about 12 GB of free disk): a 7-hour stereo WAV reversed to WAV
against ffmpeg's forward decode to null; the output must be RF64 with the right frame count (ffprobe
and a full decode) and mirror the input. The big files are deleted afterwards."""

import math
import shutil

from ..audio import decoded_frames, probe
from ..cells import pass_or_miss, ratio, value
from ..console import show as show_table, text_table
from ..inputs import make_inputs
from ..markdown import kept_section, markdown_table, measured_line, raw_line, verdict_lines
from ..runner import MIB, Command, log_walls, run_round_robin
from ..shell import die, log, run
from .reverse import RSS_LIMIT_MIB

NAME = "rf64"
HELP = "rf64 (a long reversal, as --rf64)"
HEADING = "## Long reversal to RF64 WAV"

LONG_HOURS = 7
LONG_DISK_MARGIN = 3 * 10 ** 9  # besides input and output (7 h: 8.9 GB + 3 GB ≈ the 12 GB asked for)


def wav_layout(path):
    """(magic, data offset, data bytes, block align) of a RIFF or RF64 WAV file, read from its chunks."""
    with open(path, "rb") as handle:
        head = handle.read(12)
        if len(head) < 12 or head[8:12] != b"WAVE":
            raise ValueError(f"{path} is not a WAV file")
        magic, position, ds64_data, block_align = head[:4], 12, None, None
        while True:
            handle.seek(position)
            header = handle.read(8)
            if len(header) < 8:
                raise ValueError(f"{path} has no data chunk")
            chunk, size = header[:4], int.from_bytes(header[4:], "little")
            if chunk == b"ds64":
                ds64_data = int.from_bytes(handle.read(16)[8:16], "little")
            elif chunk == b"fmt ":
                block_align = int.from_bytes(handle.read(14)[12:14], "little")
            elif chunk == b"data":
                if size == 0xFFFFFFFF and ds64_data is not None:
                    size = ds64_data
                return magic, position + 8, size, block_align
            position += 8 + size + (size & 1)


def spot_check(output, source, frames, window):
    """Whether `window` frames at the start, middle and end of `output` are `source`'s mirrored frames, byte for byte
    (read straight from both WAV files' data chunks)."""
    _, out_offset, _, align = wav_layout(output)
    _, in_offset, _, in_align = wav_layout(source)
    if align != in_align or not align:
        return False
    with open(output, "rb") as ours, open(source, "rb") as original:
        for first in (0, frames // 2, frames - window):
            ours.seek(out_offset + first * align)
            got = ours.read(window * align)
            original.seek(in_offset + (frames - first - window) * align)
            source_bytes = original.read(window * align)
            mirrored = b"".join(source_bytes[i:i + align] for i in range(len(source_bytes) - align, -1, -align))
            if got != mirrored:
                return False
    return True


def make_long_input(work, hours, rate, folder):
    """A `hours`-long stereo 44.1 kHz s16 WAV (RF64 past 4 GiB): the cached 60-minute input, looped and cut to
    the exact frame count with atrim."""
    frames = round(hours * 3600 * rate)
    hour_wav = make_inputs(work, [60], ["wav"])[(60, "wav")]
    path = folder / "input.wav"
    log(f"== making {path} ({hours:g} h, {frames * 4 / 1e9:.2f} GB) from {hour_wav.name} looped")
    run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-stream_loop", str(math.ceil(hours) - 1), "-i", str(hour_wav),
         "-af", f"atrim=end_sample={frames}", "-c:a", "pcm_s16le", "-rf64", "auto", str(path)])
    return path, frames


def measure_long(binary, work, hours, runs):
    """The long reversal row, or {"skipped": reason}. Deletes its big files before returning."""
    rate = 44100
    frames = round(hours * 3600 * rate)
    wav_bytes = frames * 4
    hour_wav = work / "inputs" / "signal-60min.wav"
    needed = 2 * wav_bytes + LONG_DISK_MARGIN + (0 if hour_wav.exists() else 3600 * rate * 4)
    free = shutil.disk_usage(work).free
    if free < needed:
        reason = (f"skipped: needs {needed / 1e9:.0f} GB free in {work} (input and output WAV "
                  f"{wav_bytes / 1e9:.1f} GB each, plus a margin), has {free / 1e9:.1f} GB")
        log(f"== long reversal {reason}")
        return {"skipped": reason, "hours": hours}
    folder = work / "long"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    try:
        source, frames = make_long_input(work, hours, rate, folder)
        source_info = probe(source)
        source_frames = int(source_info.get("duration_ts", 0) or 0)
        if source_frames != frames:
            die(f"the long input has {source_frames} frames, not {frames}")
        run_dir = folder / "run"
        commands = {}
        out, tmp = run_dir / "ours" / "out", run_dir / "ours" / "tmp"
        commands["ours"] = Command("ours", [str(binary), "convert", str(source), str(out / "out.wav"), "--reverse",
                                            "-y", "--progress", "none"], out, tmp, out / "out.wav", True)
        out, tmp = run_dir / "null" / "out", run_dir / "null" / "tmp"
        commands["null"] = Command("null", ["ffmpeg", "-nostdin", "-v", "error", "-i", str(source), "-f", "null", "-"],
                                   out, tmp, None, False)
        order = list(commands.values())
        log(f"== long reversal: {source.stat().st_size / MIB:.0f} MiB input, {runs} round-robin run(s), no warm-up "
            "(the input was just written, so it is in the page cache)")
        run_round_robin(order, runs, warm_up=False)
        log_walls(order)
        ours = commands["ours"]
        checks = {"expected": frames}
        if ours.failure is None:
            output = ours.output
            magic, _, data_bytes, _ = wav_layout(output)
            checks["magic"] = magic.decode("latin-1")
            # A RIFF header's 32-bit size (file size - 8) cannot hold more than 0xFFFFFFFF - 36 bytes of data.
            checks["needs_rf64"] = data_bytes > 0xFFFFFFFF - 36
            checks["magic_ok"] = magic == b"RF64" if checks["needs_rf64"] else magic in (b"RIFF", b"RF64")
            info = probe(output)
            checks["ffprobe"] = f"{info.get('format_name', '?')} / {info.get('codec_name', '?')}"
            checks["ffprobe_ok"] = info.get("format_name") == "wav" and info.get("codec_name") == "pcm_s16le"
            checks["duration_ts"] = int(info.get("duration_ts", 0) or 0)
            log("   decoding the output with ffmpeg to count its frames")
            checks["decoded"] = decoded_frames(output, int(info.get("channels", 0) or 0))
            checks["spot"] = spot_check(output, source, frames, rate)
            checks["output_bytes"] = output.stat().st_size
        return {"hours": hours, "frames": frames, "input_bytes": source.stat().st_size, "commands": commands,
                "checks": checks}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        log(f"   deleted {folder}")


LONG_HEADERS = ["input", "s ours", "s ffmpeg→null", "ours÷ffmpeg", "RSS ours", "RSS ffmpeg", "RSS ours÷ffmpeg",
                "tmp ours", "header", "ffprobe reads", "duration_ts", "decoded frames", "expected", "mirrored"]
LONG_LEGEND = ("s: median wall seconds; RSS: peak resident memory, MiB; tmp ours: peak temporary disk besides the "
               "output, MiB; ffmpeg→null = `ffmpeg -i X -f null -` (a forward decode that writes nothing, the floor); "
               "header: the output's first four bytes; ffprobe reads: its format / codec; duration_ts: ffprobe's "
               "stream length in frames; decoded frames: what `ffmpeg -i OUT -f s16le -` decodes; mirrored: 1 s at "
               "the start, middle and end of the output is the input's mirrored frames, byte for byte.")


def long_cells(row):
    c, checks = row["commands"], row["checks"]

    def frames(key):
        number = checks.get(key)
        if number is None:
            return "-"
        return f"{number:,}" + ("" if number == checks["expected"] else " (WRONG)")

    return [f"wav {row['hours']:g} h ({row['input_bytes'] / 1e9:.2f} GB)", value(c, "ours", "wall", 2),
            value(c, "null", "wall", 2), ratio(c, "ours", "null"), value(c, "ours", "peak_rss", 1),
            value(c, "null", "peak_rss", 1), ratio(c, "ours", "null", "peak_rss"), value(c, "ours", "peak_temp", 1),
            checks.get("magic", "-"), checks.get("ffprobe", "-"), frames("duration_ts"), frames("decoded"),
            f"{checks['expected']:,}", {True: "yes", False: "NO", None: "-"}[checks.get("spot")]]


def long_targets(row):
    if row is None:
        return []
    label = f"{row['hours']:g}-hour reversal"
    if "skipped" in row:
        return [("NOT MEASURED", f"{label}: {row['skipped']}")]
    checks, ours = row["checks"], row["commands"]["ours"]
    if ours.failure is not None:
        return [("MISS", f"{label}: ours failed ({ours.failure})")]
    kind = "RF64" if checks["needs_rf64"] else "RIFF or RF64 (under 4 GiB)"
    results = [(pass_or_miss(checks["magic_ok"] and checks["ffprobe_ok"]),
                f"{label} writes a valid {kind} WAV: header {checks['magic']}, ffprobe reads {checks['ffprobe']}")]
    counts_ok = checks["duration_ts"] == checks["expected"] and checks["decoded"] == checks["expected"]
    results.append((pass_or_miss(counts_ok), f"{label} has {checks['expected']:,} frames ({row['hours']:g} × 3600 × "
                    f"44100): ffprobe duration_ts {checks['duration_ts']:,}, decoded "
                    + ("?" if checks["decoded"] is None else f"{checks['decoded']:,}")))
    results.append((pass_or_miss(checks["spot"]), f"{label}: 1 s at the start, middle and end is the input mirrored"))
    rss = ours.peak_rss
    results.append((pass_or_miss(rss is not None and rss <= RSS_LIMIT_MIB),
                    f"{label}: ours peak RSS ≤ {RSS_LIMIT_MIB} MiB ({'-' if rss is None else f'{rss:.1f}'} MiB)"))
    return results


LONG_METHOD = f"""\
Run with `--rf64` (off by default: it needs about 12 GB of free disk, checked first, else the row
is skipped). The input is the 60-minute WAV looped and cut with atrim to exactly hours × 3600 ×
44100 frames (stereo s16; {LONG_HOURS} h by default: 4.4 GB, RF64 through the wav muxer's `-rf64 auto`).
Ours reverses it to WAV (`reverse-audio convert X out.wav --reverse -y --progress none`); the floor
is ffmpeg's forward decode into nothing (`ffmpeg -i X -f null -`; ffmpeg areverse would hold all
4.4 GB in memory, twice). No warm-up: the input was just written, so it is in the page cache.
Round-robin runs (`--rf64-runs`, default 1), measured as above. Then the output is checked: its
first four bytes (RF64 past 4 GiB), ffprobe's format, codec and duration_ts, the frames a full
`ffmpeg -i OUT -f s16le -` decodes, and 1 s at its start, middle and end, read straight from both
files' data chunks, against the input's mirrored frames. Input and output are deleted afterwards."""


def add_arguments(parser):
    parser.add_argument("--rf64", action="store_true",
                        help=f"also reverse a {LONG_HOURS}-hour stereo WAV into RF64 (needs about 12 GB of free disk)")
    parser.add_argument("--rf64-hours", type=float, default=LONG_HOURS,
                        help=f"length of that input in hours (default {LONG_HOURS}; RF64 needs more than 6.76)")
    parser.add_argument("--rf64-runs", type=int, default=1, help="timed runs of the long reversal (default 1)")


def asked_for(args):
    """--rf64 adds this table to --tables."""
    return args.rf64


def check_arguments(parser, args):
    if args.rf64_runs < 1:
        parser.error("--encode-runs and --rf64-runs must be at least 1")
    if args.rf64_hours <= 0 or args.rf64_hours > 24:
        parser.error("--rf64-hours: between 0 and 24")


def measure(context):
    row = measure_long(context.binary, context.work, context.args.rf64_hours, context.args.rf64_runs)
    return {"row": row, "verdicts": long_targets(row)}


def show(context, result):
    row = result["row"]
    table = "" if "skipped" in row else text_table([row], LONG_HEADERS, long_cells)
    show_table(f"Long reversal to RF64 WAV ({context.args.rf64_runs} timed run(s)).", LONG_LEGEND, table,
               result["verdicts"])


def written_options(context, result):
    if result is None:
        return None
    return f"--rf64 --rf64-hours {context.args.rf64_hours:g} --rf64-runs {context.args.rf64_runs}"


def section(context, result):
    row = None if result is None else result["row"]
    if row is None or "skipped" in row:
        kept = kept_section(HEADING, "run with --rf64 to measure it again")
        if kept:
            return kept
        why = row["skipped"].replace("skipped: ", "it was skipped: ") if row else "run `scripts/bench --rf64 --write`"
        return [HEADING, "", f"Not measured yet ({why}; it needs about 12 GB of free disk).", "", LONG_METHOD]
    return [HEADING, "", measured_line(context.loads), "", LONG_METHOD, "",
            LONG_LEGEND, "", markdown_table([row], LONG_HEADERS, long_cells), "",
            *verdict_lines(result["verdicts"]), "",
            "Raw timings (seconds, in run order):", "", raw_line(f"wav {row['hours']:g} h", row["commands"])]
