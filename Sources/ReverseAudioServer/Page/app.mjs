// The page of `reverse-audio serve`: the folder's files, a player that plays any of them,
// results and uploads alike, forwards or backwards (the server's virtual WAVs in one <audio>
// element) with a transport that stays in view, its waveform, loops, reverse and trim jobs,
// and the user's own files: uploaded (dropped anywhere, picked, or a URL) or recorded from the
// camera, reversed or made a boomerang, and handed back. ES modules, no build step; the JSON
// API alone. This file wires the parts together.
import { $ } from './dom.mjs';
import { state } from './state.mjs';
import { draw, loadWaveform, readColors, canvasWidth, timeAt, span } from './waveform.mjs';
import { seek, snapshot, updateControls, refresh, duration } from './player.mjs';
import { setSelection } from './trim.mjs';
import { loadFiles } from './list.mjs';
import { refreshResults } from './results.mjs';
import { setUpURLs } from './uploads.mjs';
import { clamp } from './timeline.mjs';
import './camera.mjs';
import './keys.mjs';

const canvas = $('waveform');

// On the waveform: a click seeks, a drag selects a region to trim, the wheel pans a zoom.
canvas.addEventListener('pointerdown', (event) => {
  if (!state.source || event.button !== 0) return;
  canvas.setPointerCapture(event.pointerId);
  state.drag = { x: event.clientX, t: timeAt(event.clientX), moved: false };
  event.preventDefault();
});
canvas.addEventListener('pointermove', (event) => {
  if (!state.drag) return;
  if (Math.abs(event.clientX - state.drag.x) > 4) state.drag.moved = true;
  if (state.drag.moved) setSelection(state.drag.t, timeAt(event.clientX));
});
canvas.addEventListener('pointerup', (event) => {
  const drag = state.drag;
  state.drag = null;
  if (!drag) return;
  if (drag.moved) setSelection(drag.t, timeAt(event.clientX)); else seek(drag.t);
});
canvas.addEventListener('pointercancel', () => { state.drag = null; });
canvas.addEventListener('wheel', (event) => {
  if (!state.source || state.zoom <= 1) return;
  const delta = Math.abs(event.deltaX) > Math.abs(event.deltaY) ? event.deltaX : event.deltaY;
  event.preventDefault();
  state.viewStart = clamp(state.viewStart + (delta / canvas.clientWidth) * span(), 0, Math.max(0, duration() - span()));
  draw();
}, { passive: false });

if (window.ResizeObserver) {
  let last = 0;
  new ResizeObserver(() => {
    const width = canvasWidth();
    if (width !== last) {
      last = width;
      draw();
      loadWaveform();
    }
  }).observe(canvas);
}
if (window.matchMedia) {
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { readColors(); draw(); });
}

// A read-only view of the player, for tests and the curious.
window.reverseAudio = Object.freeze({ state: snapshot });

updateControls();
refresh();
loadFiles();
refreshResults();
setUpURLs();
