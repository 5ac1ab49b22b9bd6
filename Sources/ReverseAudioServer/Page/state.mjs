// What the page holds, shared by its parts: the file in the player and how it plays, the
// waveform drawn, the list.

export const FORWARDS = 'forwards';
export const BACKWARDS = 'backwards';
export const MAX_ZOOM = 128;

export const state = {
  files: [],
  // What the player holds: {shelf: 'files'|'results'|'uploads', name, title, duration, frames,
  // sampleRate, channels, format}.
  source: null,
  direction: FORWARDS,
  pendingSeek: null,       // an audio time to set once the new source's metadata is in
  loopIn: null,
  loopOut: null,
  loopsWholeFile: true,    // the seed's player: the end wraps to the start (and back)
  streamLoops: false,      // the element's stream is the looping one (`loop=whole`)
  zoom: 1,
  viewStart: 0,            // file time at the canvas's left edge
  wave: null,              // the waveform drawn: {key, spp, rate, length, mins, maxs}
  waveCache: new Map(),    // "shelf/name|spp" → Promise of a waveform
  waveLoading: null,       // the key being fetched, while it is
  drag: null,              // a press on the waveform: {x, t, moved}
  scrubbing: false,
  frame: 0,
  trimJob: null,
};

// The key of a source: its shelf and name.
export const sourceKey = (source) => (source ? `${source.shelf}/${source.name}` : '');
