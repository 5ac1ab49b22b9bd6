// Pure arithmetic of the player: the mirrored position of a reversed stream, loop wrapping,
// waveform resolution, and the view of a zoomed waveform. No DOM: tested by node's own test
// runner (Tests/Page).

export const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

// The position in the stream playing for file time `t`: a reversed stream plays the file from
// its end, so its time is duration − t (and back: the same function).
export function streamTime(t, duration, backwards) {
  return backwards ? duration - t : t;
}

// The time within the lap playing of a looping stream (the file over and over, seamless):
// `at` modulo the file's duration.
export function lapTime(at, duration) {
  if (!(duration > 0) || at < duration) return at;
  return at % duration;
}

// Where playback goes once it passes an edge of the loop [start, end): forwards from `end` on
// to start + the overshoot, backwards from `start` down to end − the overshoot; null while it
// is inside. A whole-file loop is [0, duration).
export function wrapped(t, start, end, backwards) {
  const length = end - start;
  if (!(length > 0)) return null;
  if (!backwards && t >= end) return start + ((t - end) % length);
  if (backwards && t <= start) return end - ((start - t) % length);
  return null;
}

// The loop in force: the region when both points make one, else the whole file when looping
// is on, else none.
export function activeLoop(loopIn, loopOut, duration, loopsWholeFile) {
  if (loopIn !== null && loopOut !== null && loopOut - loopIn > 0.01) return { start: loopIn, end: loopOut };
  if (loopsWholeFile && duration > 0) return { start: 0, end: duration };
  return null;
}

// Samples per pixel for `frames` drawn `pixels` wide at `zoom`: a power of two (widths and
// zooms share answers), at least `floor` (the server's least for the file) and 2.
export function samplesPerPixel(frames, pixels, zoom, floor = 2) {
  const wanted = frames / Math.max(1, pixels * zoom);
  const power = 2 ** Math.floor(Math.log2(Math.max(2, wanted)));
  let least = 2;
  while (least < floor) least *= 2;
  return Math.max(least, power);
}

// The zoom levels of a file, coarsest first: every power of two from the one that fits the
// whole file in `pixels` down to `floor`, as one pass of `waveform --zoom` makes them.
export function zoomLevels(frames, pixels, floor = 2, maximumZoom = 128) {
  const levels = [];
  for (let zoom = 1; zoom <= maximumZoom; zoom *= 2) {
    const spp = samplesPerPixel(frames, pixels, zoom, floor);
    if (!levels.includes(spp)) levels.push(spp);
  }
  return levels;
}

// The view's left edge after a zoom from `oldSpan` to `newSpan` seconds wide: the playhead `t`
// stays where it was on the canvas when it was in view, else it is centred.
export function zoomedViewStart(t, viewStart, oldSpan, newSpan, duration) {
  const inView = t >= viewStart && t <= viewStart + oldSpan;
  const fraction = inView && oldSpan ? (t - viewStart) / oldSpan : 0.5;
  return clamp(t - fraction * newSpan, 0, Math.max(0, duration - newSpan));
}

// The view's left edge that keeps the playhead in view while it plays: the view pages ahead of
// it (or centres it when asked).
export function followedViewStart(t, viewStart, span, duration, backwards, centre = false) {
  if (!duration || span >= duration) return 0;
  let start = viewStart;
  if (t < viewStart || t > viewStart + span) start = centre ? t - span / 2 : backwards ? t - span * 0.9 : t - span * 0.1;
  return clamp(start, 0, Math.max(0, duration - span));
}
