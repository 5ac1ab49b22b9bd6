"""A cut [A, B) and where an output of it really sits: its decode aligned with the source's (the
editing table and its MP3 cuts both measure start and length errors this way)."""

import subprocess

from .audio import decode_s16

EDIT_SECONDS = 10
EDIT_WINDOW_SECONDS = 2  # source decoded either side of the cut, to find where each output starts


def locate_cut(output, reference, window, wanted, channels=2):
    """Where `output`'s decode sits in `reference` (the source's s16 frames from A − window): {"start": frames it
    starts after A (negative: before), "frames": decoded frames, "max_diff": the largest |Δ| of a sample against the
    source once aligned}, or None when it cannot be decoded. The start is found by cross-correlating a block from the
    output's middle (away from any damage at its start) with the source, then refined to the offset of least error."""
    import numpy
    try:
        ours = numpy.frombuffer(b"".join(decode_s16(output)), dtype="<i2").reshape(-1, channels).astype(numpy.float64)
    except (subprocess.CalledProcessError, OSError, ValueError):
        return None
    if len(ours) < 4096:
        return {"start": None, "frames": len(ours), "max_diff": None}
    block_start = min(len(ours) // 2, wanted // 2)
    block = ours[block_start:block_start + 4096, 0]
    source = reference[:, 0]
    size = 1 << int(len(source) + len(block)).bit_length()
    correlation = numpy.fft.irfft(numpy.fft.rfft(source, size) * numpy.conj(numpy.fft.rfft(block, size)), size)
    energy = numpy.convolve(source ** 2, numpy.ones(len(block)), "valid")
    scores = 2 * correlation[:len(energy)] - energy  # −(squared error) up to a constant
    candidates = numpy.argsort(scores)[-5:]
    best = min(candidates, key=lambda at: float(numpy.sum((source[at:at + len(block)] - block) ** 2)))
    start = int(best) - block_start - window
    first = window + start
    overlap = min(len(ours), len(reference) - first)
    aligned = reference[first:first + overlap] if first >= 0 else None
    max_diff = None if aligned is None else int(numpy.max(numpy.abs(ours[:overlap] - aligned)))
    return {"start": start, "frames": len(ours), "max_diff": max_diff}
