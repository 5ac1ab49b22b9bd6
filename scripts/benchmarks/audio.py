"""Decoding and probing audio with the ffmpeg CLI: the oracles the tables check our outputs against."""

import array
import hashlib
import json
import subprocess
import sys


def decode_s16(path):
    """Yields the s16le bytes `ffmpeg -i path` decodes (in 1 MiB chunks); raises if ffmpeg fails."""
    with subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-f", "s16le", "-acodec", "pcm_s16le",
                           "-"], stdout=subprocess.PIPE) as process:
        yield from iter(lambda: process.stdout.read(1 << 20), b"")
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, process.args)


def pcm_digest(path):
    """(MD5 of the decoded s16le samples, decoded byte count), or (None, None) when ffmpeg cannot decode it."""
    digest, size = hashlib.md5(), 0
    try:
        for chunk in decode_s16(path):
            digest.update(chunk)
            size += len(chunk)
    except subprocess.CalledProcessError:
        return None, None
    return digest.hexdigest(), size


def pcm_md5(path):
    return pcm_digest(path)[0]


def probe(path):
    """ffprobe's view of the first audio stream and the container: {"format_name", "codec_name", "sample_rate",
    "channels", "duration_ts"}, values as ffprobe gives them (missing keys are absent)."""
    done = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                           "format=format_name:stream=codec_name,sample_rate,channels,duration_ts", "-of", "json",
                           str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        return {}
    parsed = json.loads(done.stdout or "{}")
    info = dict(parsed.get("format") or {})
    streams = parsed.get("streams") or [{}]
    info.update(streams[0])
    return info


def stated_end(path):
    """Where an MP4-family file's audio ends by its container (the stream's stated duration, in
    samples), or None for other files. Ours ends there, as Apple's players do; the ffmpeg CLI
    decodes the last AAC packet whole, so its areverse gets `atrim=end_sample=N` first."""
    done = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                           "format=format_name:stream=duration_ts,time_base,sample_rate", "-of", "json", str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return None
    parsed = json.loads(done.stdout or "{}")
    if "mov" not in (parsed.get("format") or {}).get("format_name", ""):
        return None
    stream = (parsed.get("streams") or [{}])[0]
    try:
        duration, rate = int(stream["duration_ts"]), int(stream["sample_rate"])
        numerator, denominator = (int(part) for part in stream["time_base"].split("/"))
    except (KeyError, ValueError):
        return None
    if duration <= 0 or denominator <= 0:
        return None
    return (duration * numerator * rate + denominator // 2) // denominator


def areverse_filter(path):
    """`areverse`, cut first at an MP4-family file's stated end (see stated_end)."""
    end = stated_end(path)
    return "areverse" if end is None else f"atrim=end_sample={end},areverse"


def decoded_frames(path, channels=None):
    """Frames ffmpeg decodes from `path` (every sample, s16), or None."""
    channels = channels or int(probe(path).get("channels", 0) or 0)
    size = pcm_digest(path)[1]
    return None if size is None or not channels else size // (2 * channels)


def decode_s16_args(path, arguments):
    """Like decode_s16, with `arguments` (filters) after the input."""
    with subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), *arguments, "-f", "s16le", "-acodec",
                           "pcm_s16le", "-"], stdout=subprocess.PIPE) as process:
        yield from iter(lambda: process.stdout.read(1 << 20), b"")
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, process.args)


def decoded_samples(path):
    samples = array.array("h")
    samples.frombytes(b"".join(decode_s16(path)))
    if sys.byteorder == "big":
        samples.byteswap()
    return samples


def compare_pcm(path, oracle):
    """How the decoded samples of `path` compare with `oracle`'s: {"equal", "same_length", "frames", "max_diff"}
    (max_diff over the common length); None when either cannot be decoded."""
    try:
        ours, theirs = decoded_samples(path), decoded_samples(oracle)
    except (subprocess.CalledProcessError, OSError):
        return None
    common = min(len(ours), len(theirs))
    max_diff = max((abs(a - b) for a, b in zip(ours[:common], theirs[:common])), default=0)
    return {"equal": ours == theirs, "same_length": len(ours) == len(theirs), "samples": (len(ours), len(theirs)),
            "max_diff": max_diff}
