"""Splitting: a --split-minutes (60) MP3 cut into 20 pieces by a cue sheet, ours against mp3splt -c (frame mode,
-f) and ffmpeg's segment muxer (-c copy): the time, how many pieces hold exactly the whole file's decode between
their cue points, and whether the pieces played one after another are the whole file (gapless)."""

import os
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

NAME = "split"
HELP = "split (a 60-minute MP3 into 20 pieces by a cue sheet, against mp3splt -c and ffmpeg -f segment)"
DEFAULT = False
REPLACEABLE = True
HEADING = "## Splitting by a cue sheet"

PIECES = 20
TOOLS = ["ours", "mp3splt", "ffmpeg_segment"]
LABELS = {"ours": "ours", "mp3splt": "mp3splt -f -c", "ffmpeg_segment": "ffmpeg -f segment -c copy"}


def cue_points(seconds):
    """Where the tracks start, in cue frames (1/75 s): evenly, a little off the MP3 frame grid."""
    return [round((k * seconds / PIECES + (0.37 * k if k else 0)) * 75) for k in range(PIECES)]


def cue_sheet(path, source, points):
    lines = ['PERFORMER "Bench"', 'TITLE "Split"', f'FILE "{source.name}" MP3']
    for number, point in enumerate(points, start=1):
        minutes, rest = divmod(point, 75 * 60)
        lines += [f"  TRACK {number:02d} AUDIO", f'    TITLE "Track {number:02d}"',
                  f"    INDEX 01 {minutes:02d}:{rest // 75:02d}:{rest % 75:02d}"]
    path.write_text("\n".join(lines) + "\n")


def commands(binary, source, cue, points, rate, folder):
    times = ",".join(f"{point / 75:.6f}" for point in points[1:])
    return {
        "ours": [str(binary), "split", str(source), "-o", str(folder), "--cue", str(cue), "-y", "-q"],
        "mp3splt": ["mp3splt", "-f", "-Q", "-c", str(cue), "-d", str(folder), "-o", "@n", str(source)],
        "ffmpeg_segment": ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(source), "-map", "0:a", "-c", "copy", "-f", "segment",
                           "-segment_times", times, str(folder / "%02d.mp3")],
    }


def decode(path):
    done = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-f", "s16le", "-acodec", "pcm_s16le", "-"],
                          capture_output=True)
    return done.stdout if done.returncode == 0 else None


def check_pieces(folder, whole, starts, frame_bytes):
    """Pieces exactly the whole's slice between their cue points, and whether together they are the whole."""
    pieces = sorted(p for p in os.listdir(folder) if p.lower().endswith(".mp3"))
    exact = 0
    offset = 0
    gapless = len(pieces) == PIECES
    bounds = [start * frame_bytes for start in starts] + [len(whole)]
    for index, name in enumerate(pieces):
        data = decode(folder / name)
        if data is None:
            gapless = False
            continue
        if index < PIECES and data == whole[bounds[index]:bounds[index + 1]]:
            exact += 1
        if gapless and whole[offset:offset + len(data)] != data:
            gapless = False
        offset += len(data)
    return {"count": len(pieces), "exact": exact, "gapless": gapless and offset == len(whole)}


def measure_split(binary, source, runs, work):
    info = probe(source)
    rate = int(info.get("sample_rate", 44100) or 44100)
    channels = int(info.get("channels", 2) or 2)
    whole = decode(source)
    seconds = len(whole) / (2 * channels * rate)
    points = cue_points(seconds)
    starts = [round(point * rate / 75) for point in points]
    run_dir = work / "split-run"
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    cue = run_dir / "sheet.cue"
    cue_sheet(cue, source, points)
    row = {"label": f"mp3 {minutes_label(round(seconds / 60))}", "tools": {}}
    for tool in TOOLS:
        folder = run_dir / tool
        walls = []
        failed = None
        for _ in range(runs):
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            argv = commands(binary, source, cue, points, rate, folder)[tool]
            start = time.monotonic()
            done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
            walls.append(time.monotonic() - start)
            if done.returncode != 0:
                failed = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
                log(f"{tool} failed: {failed[0]}")
                break
        result = {"wall": statistics.median(walls), "failed": failed[0] if failed else None}
        if not failed:
            result.update(check_pieces(folder, whole, starts, 2 * channels))
        row["tools"][tool] = result
        shutil.rmtree(folder, ignore_errors=True)
    return row


HEADERS = ["input", "tool", "s", "pieces", "exact pieces", "gapless"]
LEGEND = (f"A cue sheet of {PIECES} tracks, evenly spaced and a little off the MP3 frame grid (track k at k/{PIECES} of "
          "the length + 0.37 k s, in cue frames of 1/75 s). ours = `reverse-audio split IN -o DIR --cue SHEET`, "
          "mp3splt -f -c = `mp3splt -f -c SHEET -d DIR IN` (frame mode, its most exact), ffmpeg -f segment -c copy = "
          "`ffmpeg -i IN -c copy -f segment -segment_times T2,…,T20 DIR/%02d.mp3`; s: median wall seconds (ours decodes every piece it writes, to check its length, and the first frames of each against the whole file's decode; the peers check nothing); exact "
          "pieces: pieces whose decode (`ffmpeg -i PIECE -f s16le -`) is exactly the whole file's decode between "
          "their cue points (round(t × rate)); gapless: the pieces decoded one after another are the whole file's "
          "decode, sample for sample.")


def cells_for(row):
    lines = []
    for tool in TOOLS:
        result = row["tools"][tool]
        if result["failed"]:
            lines.append([row["label"], LABELS[tool], f"{result['wall']:.3f}", "failed", "-", "-"])
        else:
            lines.append([row["label"], LABELS[tool], f"{result['wall']:.3f}", str(result["count"]),
                          f"{result['exact']}/{PIECES}", "yes" if result["gapless"] else "no"])
    return lines


def targets(rows):
    results = []
    for row in rows:
        ours = row["tools"]["ours"]
        good = not ours["failed"] and ours["exact"] == PIECES and ours["gapless"]
        results.append((pass_or_miss(good), f"{row['label']}: every piece exact and the pieces gapless: "
                        + ("failed" if ours["failed"] else f"{ours['exact']}/{PIECES}, gapless {'yes' if ours['gapless'] else 'no'}")))
    return results


def add_arguments(parser):
    parser.add_argument("--split-minutes", type=float, default=60,
                        help="length of the MP3 the split table cuts into 20 pieces, in minutes (default 60)")


def check_arguments(parser, args):
    if args.split_minutes * 60 < 2 * PIECES:
        parser.error("--split-minutes: too short for 20 pieces")
    if args.split_minutes == int(args.split_minutes):
        args.split_minutes = int(args.split_minutes)


def prepare(context):
    context.inputs.update(make_inputs(context.work, [context.args.split_minutes], ["mp3"]))


def measure(context):
    source = context.inputs[(context.args.split_minutes, "mp3")]
    log(f"== {source.name} split into {PIECES} pieces by a cue sheet: {context.args.runs} runs each")
    rows = [measure_split(context.binary, source, context.args.runs, context.work)]
    return {"rows": rows, "verdicts": targets(rows)}


def table_rows(rows):
    return [line for row in rows for line in cells_for(row)]


def show(context, result):
    show_table(f"A {minutes_label(context.args.split_minutes)} MP3 split into {PIECES} pieces by a cue sheet.", LEGEND,
               text_table(table_rows(result["rows"]), HEADERS, lambda line: line), result["verdicts"])


def section(context, result):
    return table_section(NAME, HEADING, context.loads, result, LEGEND, HEADERS, result and table_rows(result["rows"]))


def written_options(context, result):
    if result is None:
        return None
    return f"--split-minutes {context.args.split_minutes:g}"
