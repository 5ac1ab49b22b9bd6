// The waveform: fetched at the resolution the zoom and the canvas width call for (the server
// makes every level of the file in one pass, so a zoom after the first is at once), drawn
// with the played part, the loop, the trim selection, a time axis and the playhead.
import { api, mediaPath } from './api.mjs';
import { $ } from './dom.mjs';
import { formatTime } from './format.mjs';
import { state, sourceKey } from './state.mjs';
import { clamp, samplesPerPixel, activeLoop } from './timeline.mjs';
import { duration, fileTime, backwards, report } from './player.mjs';

const canvas = $('waveform');
const empty = $('wave-empty');
// The server's cap on a waveform's points: the finest level a file allows.
const MAX_POINTS = 1 << 20;

export function canvasWidth() {
  return Math.max(1, Math.round(canvas.clientWidth * (window.devicePixelRatio || 1)));
}

export const span = () => duration() / state.zoom;

export function timeAt(clientX) {
  const box = canvas.getBoundingClientRect();
  return clamp(state.viewStart + ((clientX - box.left) / box.width) * span(), 0, duration());
}

function wantedSpp(source) {
  return samplesPerPixel(source.frames, canvasWidth(), state.zoom, Math.ceil(source.frames / MAX_POINTS));
}

// Pieces a waveform is fetched in, as [first, last] parts of `count`: a long file's first minute
// alone (on screen after a minute's decode, while the server reads the rest), then the rest in
// two runs the server reads side by side. Every zoom level asks for the same pieces (the server
// made them all in the first pass); the pieces end to end are the whole file's waveform.
function piecesFor(source) {
  if (!(source.duration > 120)) return { count: 1, pieces: [[0, 0]] };
  const count = Math.min(64, Math.ceil(source.duration / 60));
  const middle = Math.ceil(count / 2);
  return { count, pieces: [[0, 0], [1, middle - 1], [middle, count - 1]].filter(([first, last]) => first <= last) };
}

// Starts fetching `source`'s waveform at `spp`, piece after piece, into one wave that fills as
// they come (`onPiece` after each); its promise resolves once every piece is in. The first
// piece is asked for at once, the others once `rest` settles (the sound has started: the
// server's two cores go to the first sound before the long passes).
function fetchWave(source, spp, onPiece, rest) {
  const key = sourceKey(source);
  const length = Math.ceil(source.frames / spp);
  const wave = { key, spp, rate: source.sampleRate, length, mins: new Float32Array(length), maxs: new Float32Array(length), filled: 0 };
  const { count, pieces } = piecesFor(source);
  const asked = pieces.map(([first, last], index) => {
    const part = first === last ? `${first}` : `${first}-${last}`;
    const query = `samples-per-pixel=${spp}` + (count > 1 ? `&part=${part}&parts=${count}` : '');
    const fetchPiece = () => api(`${mediaPath(source, 'waveform.json')}?${query}`);
    const answer = index === 0 ? fetchPiece() : Promise.resolve(rest).then(fetchPiece);
    answer.catch(() => {}); // awaited in turn; a failure is reported there
    return answer;
  });
  const done = (async () => {
    for (const next of asked) {
      const answer = await next;
      const piece = parseWaveform(key, answer);
      const taken = Math.min(piece.length, length - wave.filled);
      wave.mins.set(piece.mins.subarray(0, taken), wave.filled);
      wave.maxs.set(piece.maxs.subarray(0, taken), wave.filled);
      wave.rate = piece.rate;
      wave.filled += taken;
      onPiece(wave);
    }
    wave.filled = length;
    return wave;
  })();
  return { wave, done };
}

// Fetches (once) and keeps the waveform data fine enough for the zoom and the canvas width.
// The first of a file is drawn as its parts come; a finer one for a zoom replaces the one on
// screen only once it is whole. `rest`: what a long file's later pieces wait for (see fetchWave).
export async function loadWaveform(rest = null) {
  const source = state.source;
  if (!source || !source.frames) { draw(); return; }
  const spp = wantedSpp(source);
  const key = `${sourceKey(source)}|${spp}`;
  if (state.wave && state.wave.key === sourceKey(source) && state.wave.spp === spp && state.wave.filled === state.wave.length) { draw(); return; }
  const onPiece = (wave) => {
    if (state.source !== source) return;
    if (!state.wave || state.wave.key !== sourceKey(source)) state.wave = wave;
    if (state.wave === wave) draw();
  };
  let entry = state.waveCache.get(key);
  if (!entry) {
    entry = fetchWave(source, spp, onPiece, rest);
    state.waveCache.set(key, entry);
    if (state.waveCache.size > 48) state.waveCache.delete(state.waveCache.keys().next().value);
    entry.done.catch(() => state.waveCache.delete(key));
  }
  state.waveLoading = key;
  draw();
  try {
    const wave = await entry.done;
    if (state.source !== source) return;
    // A coarser answer that arrives late does not replace a finer one already drawn.
    const target = wantedSpp(source);
    const current = state.wave && state.wave.key === sourceKey(source) && state.wave.filled === state.wave.length ? state.wave : null;
    if (!current || wave.spp === target || Math.abs(Math.log2(wave.spp / target)) < Math.abs(Math.log2(current.spp / target))) {
      state.wave = wave;
    }
  } catch (error) {
    if (state.source === source) report(`No waveform for ${source.title}: ${error.message}`);
  } finally {
    if (state.waveLoading === key) state.waveLoading = null;
    draw();
  }
}

// audiowaveform's JSON (version 2): per pixel, a min and a max per channel. Kept as one min
// and max per pixel over all channels, from -1 to 1.
export function parseWaveform(key, json) {
  const channels = json.channels || 1;
  const length = json.length;
  const scale = 2 ** ((json.bits || 16) - 1);
  const mins = new Float32Array(length);
  const maxs = new Float32Array(length);
  const data = json.data;
  for (let i = 0; i < length; i++) {
    let low = Infinity;
    let high = -Infinity;
    for (let c = 0; c < channels; c++) {
      const at = (i * channels + c) * 2;
      low = Math.min(low, data[at]);
      high = Math.max(high, data[at + 1]);
    }
    mins[i] = low / scale;
    maxs[i] = high / scale;
  }
  return { key, spp: json.samples_per_pixel, rate: json.sample_rate, length, mins, maxs };
}

let colors = null;
export function readColors() {
  const style = getComputedStyle(document.documentElement);
  const get = (name) => style.getPropertyValue(name).trim();
  colors = {
    wave: get('--wave'), played: get('--wave-played'), playhead: get('--playhead'), loop: get('--loop-fill'),
    loopEdge: get('--loop-edge'), selection: get('--selection-fill'), selectionEdge: get('--selection-edge'),
    axis: get('--axis'), label: get('--muted'),
  };
}

function niceStep(seconds) {
  const steps = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
  return steps.find((step) => step >= seconds) || 7200;
}

// The trim selection, from the trim form's fields.
function selection() {
  const start = parseFloat($('trim-start').value);
  const end = parseFloat($('trim-end').value);
  return Number.isFinite(start) && Number.isFinite(end) && end > start ? { start, end } : null;
}

export function draw() {
  const ratio = window.devicePixelRatio || 1;
  const width = canvasWidth();
  const height = Math.max(1, Math.round(canvas.clientHeight * ratio));
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const ctx = canvas.getContext('2d');
  ctx.clearRect(0, 0, width, height);
  if (!colors) readColors();
  const d = duration();
  const wave = state.wave && state.source && state.wave.key === sourceKey(state.source) ? state.wave : null;
  empty.hidden = Boolean(state.source && wave && !state.waveLoading);
  const coming = wave && wave.filled < wave.length ? `Reading the file… ${Math.floor((100 * wave.filled) / wave.length)}%` : 'Sharpening…';
  empty.textContent = !state.source ? 'No file selected' : wave ? coming : state.waveLoading ? 'Loading the waveform…' : 'No waveform';
  empty.classList.toggle('corner', Boolean(wave));
  if (!state.source || !d) return;

  const view = span();
  const x = (t) => ((t - state.viewStart) / view) * width;
  const axis = 16 * ratio;
  const top = 0;
  const bottom = height - axis;
  const middle = (top + bottom) / 2;
  const half = (bottom - top) / 2 - 2 * ratio;

  const selected = selection();
  if (selected) {
    ctx.fillStyle = colors.selection;
    ctx.fillRect(x(selected.start), top, x(selected.end) - x(selected.start), bottom - top);
    ctx.fillStyle = colors.selectionEdge;
    ctx.fillRect(Math.round(x(selected.start)), top, ratio, bottom - top);
    ctx.fillRect(Math.round(x(selected.end)) - ratio, top, ratio, bottom - top);
  }
  const region = activeLoop(state.loopIn, state.loopOut, d, false);
  if (region) {
    ctx.fillStyle = colors.loop;
    ctx.fillRect(x(region.start), top, x(region.end) - x(region.start), bottom - top);
  }
  ctx.fillStyle = colors.loopEdge;
  for (const edge of [state.loopIn, state.loopOut]) {
    if (edge !== null) ctx.fillRect(Math.round(x(edge)) - ratio, top, 2 * ratio, bottom - top);
  }

  ctx.fillStyle = colors.axis;
  ctx.fillRect(0, Math.round(middle), width, Math.max(1, Math.round(ratio / 2)));
  const now = fileTime();
  if (wave) {
    const perSecond = wave.rate / wave.spp;
    for (let px = 0; px < width; px++) {
      const t0 = state.viewStart + (px / width) * view;
      const t1 = state.viewStart + ((px + 1) / width) * view;
      const played = backwards() ? t0 >= now : t1 <= now;
      const i0 = Math.floor(t0 * perSecond);
      const i1 = Math.max(i0 + 1, Math.ceil(t1 * perSecond));
      // Past what has come of a waveform being fetched: nothing yet.
      if (i0 >= wave.filled || i1 <= 0) continue;
      let low = Infinity;
      let high = -Infinity;
      for (let i = Math.max(0, i0); i < Math.min(i1, wave.filled); i++) {
        if (wave.mins[i] < low) low = wave.mins[i];
        if (wave.maxs[i] > high) high = wave.maxs[i];
      }
      const y0 = middle - high * half;
      const y1 = middle - low * half;
      ctx.fillStyle = played ? colors.played : colors.wave;
      ctx.fillRect(px, y0, 1, Math.max(ratio, y1 - y0));
    }
  }

  ctx.fillStyle = colors.label;
  ctx.font = `${11 * ratio}px system-ui, sans-serif`;
  ctx.textBaseline = 'middle';
  const step = niceStep((view / width) * 110 * ratio);
  const decimals = step < 0.1 ? 2 : step < 1 ? 1 : 0;
  for (let t = Math.ceil(state.viewStart / step) * step; t <= state.viewStart + view + 1e-9; t += step) {
    const at = Math.round(x(t));
    ctx.fillRect(at, bottom, ratio, 4 * ratio);
    if (at < width - 40 * ratio) ctx.fillText(formatTime(t, decimals), at + 3 * ratio, bottom + axis / 2 + ratio);
  }

  const head = Math.round(x(now));
  ctx.fillStyle = colors.playhead;
  ctx.fillRect(head - ratio, top, 2 * ratio, bottom - top);
  ctx.beginPath();
  ctx.moveTo(head - 5 * ratio, top);
  ctx.lineTo(head + 5 * ratio, top);
  ctx.lineTo(head, top + 6 * ratio);
  ctx.fill();
}
