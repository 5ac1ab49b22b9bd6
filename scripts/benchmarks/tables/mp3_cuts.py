"""MP3 cuts by encoder and setting, the second table of the edit section (measured with `--tables edit`):
100 random 10-second cuts of 30-second files made by the lame CLI and by ffmpeg's libmp3lame, ours
against mp3splt's repair and ffmpeg -c copy."""

import shutil
import subprocess

from ..audio import decode_s16, probe
from ..cells import pass_or_miss
from ..cuts import EDIT_SECONDS, EDIT_WINDOW_SECONDS, locate_cut
from ..inputs import signal_graph
from ..markdown import verdict_lines
from ..shell import log, run


MP3_CUT_CLASSES = [  # label, encoder ("lame" CLI or ffmpeg's libmp3lame), its options, channels
    ("lame -b 128", "lame", ["-b", "128"], 2),
    ("lame -V5", "lame", ["-V5"], 2),
    ("lame -V9", "lame", ["-V9"], 2),
    ("lame -b 64, mono", "lame", ["-b", "64"], 1),
    ("ffmpeg -b:a 128k", "ffmpeg", ["-b:a", "128k"], 2),
    ("ffmpeg -q:a 5", "ffmpeg", ["-q:a", "5"], 2),
    ("ffmpeg -q:a 9", "ffmpeg", ["-q:a", "9"], 2),
    ("ffmpeg -b:a 64k, mono", "ffmpeg", ["-b:a", "64k"], 1),
]
MP3_CUT_SOURCE_SECONDS = 30
MP3_CUT_COUNT = 100
MP3_CUT_TOOLS = ["ours", "mp3splt", "ffmpeg_copy"]
MP3_CUT_TARGET = 0.99
MP3_CUT_HEADING = "### MP3 cuts by encoder and setting"


def make_mp3_classes(work):
    """{label: (path, channels)}: the 30-second sources, made once and cached."""
    folder = work / "inputs" / "mp3-cuts"
    folder.mkdir(parents=True, exist_ok=True)
    made = {}
    for label, encoder, options, channels in MP3_CUT_CLASSES:
        wav = folder / f"signal-{MP3_CUT_SOURCE_SECONDS}s-{channels}ch.wav"
        if not wav.exists():
            run(["ffmpeg", "-nostdin", "-v", "error", "-y", *signal_graph(MP3_CUT_SOURCE_SECONDS), "-ac", str(channels),
                 "-c:a", "pcm_s16le", str(wav)])
        stem = "".join(c if c.isalnum() else "-" for c in label)
        path = folder / f"{stem}.mp3"
        if not path.exists():
            if encoder == "lame":
                run(["lame", "--quiet", *options, str(wav), str(path)])
            else:
                run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(wav), "-c:a", "libmp3lame", *options, str(path)])
        made[label] = (path, channels)
    return made


def mp3_cut_commands(binary, source, start_frame, end_frame, rate, folder):
    """{tool: (argv, output)} for one cut [A, B): ours, mp3splt -f -b, ffmpeg -ss -to -c copy."""
    def clock(frame):  # mp3splt's minutes.seconds.hundredths; the cuts fall on 1/50 s
        hundredths = round(frame * 100 / rate)
        return f"{hundredths // 6000}.{hundredths // 100 % 60:02d}.{hundredths % 100:02d}"
    return {
        "ours": ([str(binary), "trim", str(source), str(folder / "ours.mp3"), "--start", f"{start_frame}s", "--end",
                  f"{end_frame}s", "--verbose", "-y"], folder / "ours.mp3"),
        "mp3splt": (["mp3splt", "-f", "-b", "-Q", "-d", str(folder), "-o", "mp3splt", str(source), clock(start_frame),
                     clock(end_frame)], folder / "mp3splt.mp3"),
        "ffmpeg_copy": (["ffmpeg", "-nostdin", "-v", "error", "-y", "-ss", f"{start_frame / rate:.6f}", "-to",
                         f"{end_frame / rate:.6f}", "-i", str(source), "-c", "copy", str(folder / "ffmpeg.mp3")],
                        folder / "ffmpeg.mp3"),
    }


def measure_mp3_cuts(binary, work):
    """One row per class: for each tool, how many of the cuts came out exact (and, for ours, copied), and the
    start and length errors (frames) of the others."""
    import numpy
    import random
    rows = []
    folder = work / "run-mp3-cuts"
    for label, (source, channels) in make_mp3_classes(work).items():
        rate = int(probe(source).get("sample_rate", 44100) or 44100)
        full = numpy.frombuffer(b"".join(decode_s16(source)), dtype="<i2").reshape(-1, channels)
        step = rate // 50
        length = EDIT_SECONDS * rate
        window = EDIT_WINDOW_SECONDS * rate
        generator = random.Random(label)
        results = {tool: [] for tool in MP3_CUT_TOOLS}
        log(f"== {MP3_CUT_COUNT} cuts of {source.name}")
        for _ in range(MP3_CUT_COUNT):
            start = generator.randrange(0, (len(full) - length) // step + 1) * step
            end = start + length
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            for tool, (argv, output) in mp3_cut_commands(binary, source, start, end, rate, folder).items():
                done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True)
                if done.returncode != 0 or not output.exists():
                    results[tool].append({"failed": True})
                    continue
                decoded = numpy.frombuffer(b"".join(decode_s16(output)), dtype="<i2").reshape(-1, channels)
                exact = len(decoded) == length and numpy.array_equal(decoded, full[start:end])
                found = {"failed": False, "exact": exact, "copied": "copied (MP3 frames" in done.stderr,
                         "length": len(decoded) - length, "start": 0 if exact else None}
                if not exact:
                    first = max(0, start - window)
                    located = locate_cut(output, full[first:end + window].astype(numpy.float64), start - first, length,
                                         channels)
                    found["start"] = None if located is None else located["start"]
                results[tool].append(found)
        rows.append({"label": label, "results": results})
    shutil.rmtree(folder, ignore_errors=True)
    return rows


def spread(values):
    """"median (min … max)" of integers, or "-"."""
    values = sorted(v for v in values if v is not None)
    if not values:
        return "-"
    median = values[len(values) // 2]
    return f"{median:+d}" if values[0] == values[-1] else f"{median:+d} ({values[0]:+d} … {values[-1]:+d})"


def mp3_cut_cells(row):
    cells = [row["label"]]
    for tool in MP3_CUT_TOOLS:
        found = row["results"][tool]
        failed = sum(1 for f in found if f["failed"])
        done = [f for f in found if not f["failed"]]
        good = sum(1 for f in done if f["exact"] and (tool != "ours" or f["copied"]))
        text = f"{good}/{len(found)}"
        if failed:
            text += f" ({failed} refused)"
        cells.append(text)
        if tool != "ours":
            cells.append(spread(f["start"] for f in done))
            cells.append(spread(f["length"] for f in done))
    return cells


MP3_CUT_HEADERS = ["input (30 s)", "ours: copied and exact", "mp3splt -f -b: exact", "its start error", "its length error",
                   "ffmpeg -c copy: exact", "its start error", "its length error"]
MP3_CUT_METHOD = f"""\
{MP3_CUT_COUNT} random {EDIT_SECONDS}-second cuts [A, B) (on 1/50-second boundaries, which every tool can name) of a
{MP3_CUT_SOURCE_SECONDS}-second stereo (or mono) input per row, the signal above, encoded by the `lame` CLI (3.100) or by
ffmpeg's libmp3lame. Ours: `trim X out.mp3 --start As --end Bs`, counted when it copied the frames (its `--verbose` says
so) and ffmpeg decodes the output to exactly the slice `atrim` cuts from the input's decode. mp3splt 2.6.2: `mp3splt -f
-b X START END` (frame mode, bit reservoir repair), exact the same way; `ffmpeg -ss S -to E -i X -c copy`. For the
others, the start error (frames the output starts after A, found by aligning its decode with the source's) and the
length error (frames decoded minus B − A), as median (least … most); a refusal counts as not exact."""


def mp3_cut_targets(rows):
    if not rows:
        return []
    short = [row["label"] for row in rows
             if sum(1 for f in row["results"]["ours"] if not f["failed"] and f["exact"] and f["copied"])
             < MP3_CUT_TARGET * len(row["results"]["ours"])]
    return [(pass_or_miss(not short), f"ours copies and cuts exactly at least {MP3_CUT_TARGET:.0%} of the cuts of every "
             "class" + (f"; NOT for: {', '.join(short)}" if short else ""))]


def mp3_cut_section(rows):
    if not rows:
        return []
    text = [MP3_CUT_HEADING, "", MP3_CUT_METHOD, "", "| " + " | ".join(MP3_CUT_HEADERS) + " |",
            "|---|" + "---:|" * (len(MP3_CUT_HEADERS) - 1)]
    text += ["| " + " | ".join(mp3_cut_cells(row)) + " |" for row in rows]
    return text + [""] + verdict_lines(mp3_cut_targets(rows))
