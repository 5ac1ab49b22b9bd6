"""A faded cut: 10 minutes from the middle of a --fade-minutes (60) MP3 and M4A, faded in over 2 s and out over
3 s (linear), ours (`trim --fade-in --fade-out`: the frames under the fades encoded again, the rest copied) against
LosslessCut's way (ffmpeg decoding the cut, fading it with afade and encoding all of it again): the time, the share
of the output's audio bytes that are the input's packets byte for byte, and how much of the audio outside the fades
is the input's own decode, sample for sample."""

import shutil
import statistics
import subprocess
import time

from ..audio import probe
from ..cells import pass_or_miss
from ..console import show as show_table, text_table
from ..inputs import make_inputs, minutes_label
from ..markdown import table_section
from ..shell import log

NAME = "fades"
HELP = "fades (a faded 10-minute cut of a 60-minute MP3 and M4A, against LosslessCut's way: ffmpeg re-encoding it all)"
DEFAULT = False
REPLACEABLE = True
HEADING = "## A faded cut"

CUT_SECONDS = 600
FADE_IN = 2
FADE_OUT = 3
TOOLS = ["ours", "reencode"]
LABELS = {"ours": "ours", "reencode": "LosslessCut's way (ffmpeg, all re-encoded)"}
ENCODERS = {"mp3": ["-c:a", "libmp3lame", "-b:a", "192k"], "m4a": ["-c:a", "aac", "-b:a", "192k"]}
# Frames of the codec either side of the fades that may differ (the frames encoded again reach up to a frame
# before a fade-out and two after a fade-in).
FRAME = {"mp3": 1152, "m4a": 1024}


def commands(binary, source, output, start, rate):
    end = start + CUT_SECONDS
    fades = f"afade=t=in:st=0:d={FADE_IN}:curve=tri,afade=t=out:st={CUT_SECONDS - FADE_OUT}:d={FADE_OUT}:curve=tri"
    return {
        "ours": [str(binary), "trim", str(source), str(output), "--start", f"{start * rate}s", "--end", f"{end * rate}s",
                 "--fade-in", str(FADE_IN), "--fade-out", str(FADE_OUT), "--fade-shape", "t", "-y", "-q"],
        # LosslessCut applies effects by encoding the segment again: the seek before the input, as it does.
        "reencode": ["ffmpeg", "-nostdin", "-v", "error", "-y", "-ss", str(start), "-to", str(end), "-i", str(source),
                     "-map", "0:a", "-af", fades, *ENCODERS[source.suffix[1:]], str(output)],
    }


def packet_hashes(path):
    """(md5, size) of every audio packet, as ffmpeg's framemd5 reads them."""
    done = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-map", "0:a", "-c", "copy", "-f", "framemd5", "-"],
                          capture_output=True, text=True)
    result = []
    for line in done.stdout.splitlines():
        if line.startswith("#"):
            continue
        fields = [field.strip() for field in line.split(",")]
        if len(fields) > 5:
            result.append((fields[5], int(fields[4])))
    return result


def decode(path, extra=()):
    done = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), *extra, "-f", "s16le", "-acodec", "pcm_s16le", "-"],
                          capture_output=True)
    return done.stdout if done.returncode == 0 else None


def outside_fades(output, slice_pcm, channels, rate, kind):
    """The share of the frames outside the fades (widened by the codec's frames) equal to the input's decode, and
    the largest difference there."""
    import numpy
    ours = decode(output)
    if ours is None:
        return None
    mine = numpy.frombuffer(ours, dtype="<i2").reshape(-1, channels)
    theirs = numpy.frombuffer(slice_pcm, dtype="<i2").reshape(-1, channels)
    low = FADE_IN * rate + 3 * FRAME[kind]
    high = min(len(theirs), len(mine)) - FADE_OUT * rate - 2 * FRAME[kind]
    if high <= low:
        return None
    a = mine[low:high].astype(numpy.int32)
    b = theirs[low:high].astype(numpy.int32)
    equal = numpy.all(a == b, axis=1)
    return {"exact": float(equal.mean()), "largest": int(numpy.abs(a - b).max()), "frames": len(mine)}


def measure_kind(binary, source, minutes, runs, work):
    info = probe(source)
    rate = int(info.get("sample_rate", 44100) or 44100)
    channels = int(info.get("channels", 2) or 2)
    kind = source.suffix[1:]
    start = int(minutes * 60 / 3)
    slice_pcm = decode(source, ["-af", f"atrim=start_sample={start * rate}:end_sample={(start + CUT_SECONDS) * rate}"])
    source_packets = {digest for digest, _ in packet_hashes(source)}
    run_dir = work / "fades-run"
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    row = {"label": f"{kind} {minutes_label(minutes)}", "kind": kind, "tools": {}}
    for tool in TOOLS:
        output = run_dir / f"{tool}.{kind}"
        walls = []
        failed = None
        for _ in range(runs):
            output.unlink(missing_ok=True)
            argv = commands(binary, source, output, start, rate)[tool]
            began = time.monotonic()
            done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
            walls.append(time.monotonic() - began)
            if done.returncode != 0:
                failed = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
                log(f"{tool} failed: {failed[0]}")
                break
        result = {"wall": statistics.median(walls), "failed": failed[0] if failed else None}
        if not failed:
            packets = packet_hashes(output)
            total = sum(size for _, size in packets) or 1
            copied = sum(size for digest, size in packets if digest in source_packets)
            result.update({"copied": copied / total, "bytes": output.stat().st_size,
                           "outside": outside_fades(output, slice_pcm, channels, rate, kind)})
        row["tools"][tool] = result
    shutil.rmtree(run_dir, ignore_errors=True)
    return row


HEADERS = ["input", "tool", "s", "audio bytes copied", "outside the fades: samples the input's", "largest difference there"]
LEGEND = (f"A {CUT_SECONDS // 60}-minute cut from a third of the way in, faded in over {FADE_IN} s and out over {FADE_OUT} s "
          "(linear). ours = `reverse-audio trim IN OUT --start A --end B --fade-in 2 --fade-out 3 --fade-shape t`: the "
          "frames under the fades encoded again (LAME without the bit reservoir; FFmpeg's AAC at -q:a 2), the rest "
          "copied; LosslessCut's way = `ffmpeg -ss A -to B -i IN -af afade…,afade… -c:a libmp3lame|aac -b:a 192k OUT` "
          "(what it runs for a segment with effects: all of it decoded and encoded again). s: median wall seconds; "
          "audio bytes copied: the output's packets that are the input's byte for byte (ffmpeg's framemd5), by size; "
          "outside the fades (and a few frames either side): the share of frames whose 16-bit decode is the input's "
          "decode between the cut points, and the largest difference there (the M4A, made by FFmpeg's AAC encoder, "
          "uses noise substitution, whose noise differs in any decode that does not start at the file's start).")


def cells_for(row):
    lines = []
    for tool in TOOLS:
        result = row["tools"][tool]
        if result["failed"]:
            lines.append([row["label"], LABELS[tool], f"{result['wall']:.3f}", "failed", "-", "-"])
            continue
        outside = result["outside"]
        lines.append([row["label"], LABELS[tool], f"{result['wall']:.3f}", f"{100 * result['copied']:.1f}%",
                      "-" if outside is None else f"{100 * outside['exact']:.2f}%",
                      "-" if outside is None else str(outside["largest"])])
    return lines


def targets(rows):
    results = []
    for row in rows:
        ours, theirs = row["tools"]["ours"], row["tools"]["reencode"]
        if ours["failed"] or theirs["failed"]:
            results.append((pass_or_miss(False), f"{row['label']}: a run failed"))
            continue
        outside = ours["outside"] or {"exact": 0}
        # AAC's noise-substituted bands differ in any decode of copied packets (their noise generator's
        # state is a continuous decode's): MP3 alone must be bit-exact there.
        exact = outside["exact"] == 1 or row["kind"] == "m4a"
        good = exact and ours["copied"] > 0.95 and ours["wall"] < theirs["wall"]
        results.append((pass_or_miss(good), f"{row['label']}: outside the fades the input's decode "
                        f"({100 * outside['exact']:.2f}% of the frames{'' if outside['exact'] == 1 else ', the rest in noise-substituted bands'}), "
                        f"{100 * ours['copied']:.1f}% of the bytes copied, "
                        f"{theirs['wall'] / max(ours['wall'], 1e-9):.1f}× faster than re-encoding it all"))
    return results


def add_arguments(parser):
    parser.add_argument("--fade-minutes", type=float, default=60,
                        help="length of the MP3 and M4A the fades table cuts 10 minutes from, in minutes (default 60)")


def check_arguments(parser, args):
    if args.fade_minutes * 60 < 2 * CUT_SECONDS:
        parser.error("--fade-minutes: at least 20")
    if args.fade_minutes == int(args.fade_minutes):
        args.fade_minutes = int(args.fade_minutes)


def prepare(context):
    context.inputs.update(make_inputs(context.work, [context.args.fade_minutes], ["mp3", "m4a"]))


def measure(context):
    rows = []
    for kind in ["mp3", "m4a"]:
        source = context.inputs[(context.args.fade_minutes, kind)]
        log(f"== {source.name}: a faded {CUT_SECONDS // 60}-minute cut, {context.args.runs} runs each")
        rows.append(measure_kind(context.binary, source, context.args.fade_minutes, context.args.runs, context.work))
    return {"rows": rows, "verdicts": targets(rows)}


def table_rows(rows):
    return [line for row in rows for line in cells_for(row)]


def show(context, result):
    show_table(f"A faded {CUT_SECONDS // 60}-minute cut of a {minutes_label(context.args.fade_minutes)} file.", LEGEND,
               text_table(table_rows(result["rows"]), HEADERS, lambda line: line), result["verdicts"])


def section(context, result):
    return table_section(NAME, HEADING, context.loads, result, LEGEND, HEADERS, result and table_rows(result["rows"]))


def written_options(context, result):
    if result is None:
        return None
    return f"--fade-minutes {context.args.fade_minutes:g}"
