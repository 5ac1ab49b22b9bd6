"""The audio inputs every table measures: a stereo 44.1 kHz chirp plus noise per length, made once as
WAV by the ffmpeg CLI, encoded from it to the other formats, and cached in the work folder."""

import os
import shutil
import subprocess

from .shell import ROOT, log, run

FORMATS = ["mp3", "m4a", "flac", "wav"]
ENCODE = {
    "mp3": ["-c:a", "libmp3lame", "-b:a", "192k"],
    "m4a": ["-c:a", "aac", "-b:a", "192k"],
    "flac": ["-c:a", "flac"],
}
SOX_READS = {"mp3", "flac", "wav"}  # SoX has no AAC/MP4 reader


def minutes_label(minutes):
    return f"{minutes:g} min"


def signal_graph(seconds):
    # Left: 100 Hz -> 8 kHz linear chirp every 10 s; right: 150 Hz -> 7.15 kHz every 7 s.
    # Plus independent pink (left) and white (right) noise, so nothing compresses trivially.
    chirp = ("aevalsrc=exprs='0.5*sin(2*PI*(100*mod(t,10)+395*mod(t,10)^2))"
             "|0.5*sin(2*PI*(150*mod(t,7)+500*mod(t,7)^2))'"
             f":s=44100:c=stereo:d={seconds}")
    return [
        "-f", "lavfi", "-i", chirp,
        "-f", "lavfi", "-i", f"anoisesrc=r=44100:a=0.15:c=pink:s=1:d={seconds}",
        "-f", "lavfi", "-i", f"anoisesrc=r=44100:a=0.15:c=white:s=2:d={seconds}",
        "-filter_complex",
        "[1][2]amerge=inputs=2[noise];[0][noise]amix=inputs=2:normalize=0,"
        "aformat=sample_fmts=s16:sample_rates=44100:channel_layouts=stereo",
    ]


def make_inputs(work, durations, formats):
    """Returns {(minutes, format): path}, making whatever is not cached yet."""
    folder = work / "inputs"
    folder.mkdir(parents=True, exist_ok=True)
    inputs = {}
    for minutes in durations:
        stem = f"signal-{minutes:g}min"
        wav = folder / f"{stem}.wav"
        if not wav.exists():
            log(f"== making {wav.relative_to(ROOT) if wav.is_relative_to(ROOT) else wav}")
            partial = folder / f".{stem}.partial.wav"
            run(["ffmpeg", "-nostdin", "-v", "error", "-y", *signal_graph(minutes * 60),
                 "-c:a", "pcm_s16le", str(partial)])
            os.replace(partial, wav)
        for fmt in formats:
            path = folder / f"{stem}.{fmt}"
            if fmt != "wav" and not path.exists():
                log(f"== encoding {path.name}")
                partial = folder / f".{stem}.partial.{fmt}"
                run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(wav), *ENCODE[fmt], str(partial)])
                os.replace(partial, path)
            inputs[(minutes, fmt)] = path
    return inputs


def sox_can_read(fmt):
    if fmt not in SOX_READS:
        return False
    listing = subprocess.run(["sox", "-h"], capture_output=True, text=True).stdout
    for line in listing.splitlines():
        if line.startswith("AUDIO FILE FORMATS:"):
            return fmt in line.split()[3:]
    return False


def warm_cache(path):
    """Reads `path` once so that every command finds it in the page cache."""
    with open(path, "rb") as handle:
        while handle.read(1 << 24):
            pass


def link_or_copy(source, target):
    """`target` made the same file as `source` (a hard link; a copy across file systems)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.unlink()
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
