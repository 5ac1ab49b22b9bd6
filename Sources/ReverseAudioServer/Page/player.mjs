// The player: one <audio> element over the server's virtual WAVs (forwards, or the file
// reversed), the transport bar that stays in view (play/pause, direction, time, name, loop),
// the whole-file loop of the seed's player and a loop region, seeking and zoom.
import { mediaPath } from './api.mjs';
import { $, element, say } from './dom.mjs';
import { formatTime, formatRate, formatChannels } from './format.mjs';
import { state, FORWARDS, BACKWARDS, MAX_ZOOM } from './state.mjs';
import { clamp, streamTime, lapTime, wrapped, activeLoop, zoomedViewStart, followedViewStart } from './timeline.mjs';
import { draw, loadWaveform, span } from './waveform.mjs';
import { resetTrim, updateTrimButton } from './trim.mjs';

const audio = $('player');
const ui = {
  now: $('now-playing'), playPause: $('play-pause'), direction: $('direction'), scrub: $('scrub'), time: $('time'),
  zoomIn: $('zoom-in'), zoomOut: $('zoom-out'), zoomLevel: $('zoom-level'), loopIn: $('loop-in'), loopOut: $('loop-out'),
  loopClear: $('loop-clear'), loopRange: $('loop-range'), loopWhole: $('loop-whole'), transportName: $('transport-name'),
  panel: $('player-panel'),
};

// Listeners told when the source changes (the list marks its current row).
const sourceListeners = [];
export const onSourceChange = (listener) => sourceListeners.push(listener);

export const duration = () => (state.source ? state.source.duration : 0);
export const backwards = () => Boolean(state.source) && state.direction === BACKWARDS;
export const isPlaying = () => !audio.paused;

// The file time playing now (the reversed WAV plays the file from its end; a looping one plays
// it lap after lap).
export function fileTime() {
  if (!state.source) return 0;
  const d = duration();
  const played = audio.readyState < 1 && state.pendingSeek !== null ? state.pendingSeek : audio.currentTime;
  const at = state.streamLoops ? lapTime(played, d) : played;
  return clamp(streamTime(at, d, backwards()), 0, d || at);
}

// A failure of the player, said beside it.
export function report(text) {
  say(ui.panel, text);
}

// The stream for `source` in `direction`: with the whole-file loop on, the file over and over
// in one stream (`loop=whole`), so the end runs on into the start without a gap.
function audioURL(source, direction) {
  const query = [direction === BACKWARDS && 'direction=reverse', state.loopsWholeFile && 'loop=whole'].filter(Boolean);
  return mediaPath(source, 'audio') + (query.length ? `?${query.join('&')}` : '');
}

function startPlaying() {
  const promise = audio.play();
  if (promise) {
    promise.catch((error) => {
      // A source that fails is explained by the element's error event, with the server's reason.
      if (error.name !== 'AbortError' && error.name !== 'NotSupportedError') {
        report(`Could not play ${state.source ? state.source.title : 'that'}: ${error.message}`);
      }
    });
  }
}

// Points the element at `url`, at audio time `at`, playing or not.
function load(url, at, play) {
  state.streamLoops = url.includes('loop=whole');
  // In a looping stream the file's end is the next lap's start: the same frames, at 0.
  if (state.streamLoops) at = lapTime(at, duration());
  state.pendingSeek = at > 0 ? at : null;
  audio.src = url;
  if (at > 0) {
    try { audio.currentTime = at; } catch { /* set once the metadata is in */ }
  }
  if (play) startPlaying();
  refresh();
}

// Plays `source` (a list row, a result or an upload, with its shelf) from its start, or goes
// on with it when it is already the one playing.
export function play(source) {
  if (state.source && state.source.shelf === source.shelf && state.source.name === source.name) {
    if (audio.paused) togglePlay();
    return;
  }
  say(ui.panel, '');
  state.source = source;
  state.direction = FORWARDS;
  state.loopIn = null;
  state.loopOut = null;
  state.zoom = 1;
  state.viewStart = 0;
  state.wave = null;
  resetTrim();
  const detail = [source.format && source.format.toUpperCase(), source.sampleRate && formatRate(source.sampleRate),
    source.channels && formatChannels(source.channels)].filter(Boolean).join(' · ');
  ui.now.replaceChildren(element('strong', { text: source.title }), element('span', { class: 'muted', text: detail ? ` · ${detail}` : '' }));
  ui.transportName.textContent = source.title;
  ui.transportName.title = source.name;
  for (const listener of sourceListeners) listener(source);
  updateControls();
  load(audioURL(source, FORWARDS), 0, true);
  loadWaveform(sounding());
}

// Settles once the element plays (or has failed, or after a second and a half).
function sounding() {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); audio.removeEventListener('playing', done); audio.removeEventListener('error', done); resolve(); };
    const timer = setTimeout(done, 1500);
    audio.addEventListener('playing', done);
    audio.addEventListener('error', done);
  });
}

// The source the player holds, gone from the server (a file deleted since the list was made):
// the server's reason beside the player, instead of a silent element.
async function explainFailure() {
  const source = state.source;
  if (!source) return;
  try {
    const response = await fetch(`${audioURL(source, state.direction)}`, { headers: { Range: 'bytes=0-0' } });
    const body = response.ok ? null : await response.json().catch(() => null);
    const reason = body && body.error ? body.error.message : `the server answered ${response.status}`;
    report(`Could not play ${source.title}: ${response.ok ? 'the browser could not play what the server sent' : reason}`);
  } catch (error) {
    report(`Could not play ${source.title}: ${error.message}`);
  }
  state.waveLoading = null;
  draw();
  updatePlayButton();
}

export function togglePlay() {
  if (!state.source) {
    const first = state.files.find((file) => !file.error && !file.pending);
    if (first) play({ shelf: 'files', title: first.name, ...first });
    return;
  }
  if (audio.paused) {
    if (audio.ended) seek(backwards() ? duration() : 0);
    startPlaying();
  } else {
    audio.pause();
  }
}

export function setDirection(direction) {
  if (!state.source || direction === state.direction) return;
  const playing = !audio.paused;
  const d = duration();
  const t = fileTime();
  state.direction = direction;
  // The same moment of the file in the other WAV: audio time t ↔ duration − t.
  load(audioURL(state.source, direction), streamTime(t >= d ? d : t, d, backwards()), playing);
  updateControls();
}

export const toggleDirection = () => setDirection(state.direction === FORWARDS ? BACKWARDS : FORWARDS);

export function seek(t) {
  if (!state.source) return;
  const d = duration();
  const at = clamp(streamTime(clamp(t, 0, d), d, backwards()), 0, d);
  // This seek replaces one a load left pending: the element may have its metadata while the
  // loadedmetadata that would apply the old one is still queued (a scrub just after a turn).
  state.pendingSeek = audio.readyState < 1 ? at : null;
  try { audio.currentTime = at; } catch { state.pendingSeek = at; }
  state.viewStart = followedViewStart(fileTime(), state.viewStart, span(), d, backwards(), true);
  refresh();
}

export const seekBy = (seconds) => seek(fileTime() + seconds);

// ---- loops ------------------------------------------------------------------------------

export function setLoopPoint(which) {
  if (!state.source) return;
  const t = fileTime();
  if (which === 'in') state.loopIn = t; else state.loopOut = t;
  if (state.loopIn !== null && state.loopOut !== null && state.loopOut < state.loopIn) {
    [state.loopIn, state.loopOut] = [state.loopOut, state.loopIn];
  }
  updateLoopLabel();
  draw();
}

export function clearLoop() {
  state.loopIn = null;
  state.loopOut = null;
  updateLoopLabel();
  draw();
}

export function toggleWholeLoop() {
  state.loopsWholeFile = !state.loopsWholeFile;
  updateLoopLabel();
  // The other stream (looping or not), at the same moment of the file.
  if (state.source) load(audioURL(state.source, state.direction), streamTime(fileTime(), duration(), backwards()), !audio.paused);
}

function updateLoopLabel() {
  const region = activeLoop(state.loopIn, state.loopOut, duration(), false);
  const text = region ? `Loop ${formatTime(region.start)} – ${formatTime(region.end)}`
    : state.loopIn !== null || state.loopOut !== null
      ? `${state.loopIn === null ? '…' : formatTime(state.loopIn)} – ${state.loopOut === null ? '…' : formatTime(state.loopOut)}`
      : state.loopsWholeFile ? 'Loops the file' : 'Loop off';
  ui.loopRange.textContent = text;
  ui.loopRange.classList.toggle('muted', !region && !state.loopsWholeFile);
  ui.loopClear.disabled = !state.source || (state.loopIn === null && state.loopOut === null);
  ui.loopWhole.setAttribute('aria-pressed', String(state.loopsWholeFile));
}

// Keeps a playing loop inside its edges, whichever way it plays: past an edge, on at the other.
function enforceLoop() {
  if (audio.paused || audio.seeking) return;
  const loop = activeLoop(state.loopIn, state.loopOut, duration(), false);
  if (!loop) return;
  const next = wrapped(fileTime(), loop.start, loop.end, backwards());
  if (next !== null) seek(next);
}

// The stream's end: the file's end forwards, its start backwards. The whole-file loop (or a
// region) goes on from the other edge, as the seed's player does.
function ended() {
  const loop = activeLoop(state.loopIn, state.loopOut, duration(), state.loopsWholeFile);
  if (loop) {
    seek(backwards() ? loop.end : loop.start);
    startPlaying();
  }
  updatePlayButton();
  refresh();
}

// ---- zoom -------------------------------------------------------------------------------

export function setZoom(zoom) {
  if (!state.source) return;
  zoom = clamp(zoom, 1, MAX_ZOOM);
  if (zoom === state.zoom) return;
  const oldSpan = span();
  state.zoom = zoom;
  state.viewStart = zoomedViewStart(fileTime(), state.viewStart, oldSpan, span(), duration());
  updateZoom();
  loadWaveform();
  draw();
}

function updateZoom() {
  ui.zoomLevel.textContent = `${state.zoom}×`;
  ui.zoomIn.disabled = !state.source || state.zoom >= MAX_ZOOM;
  ui.zoomOut.disabled = !state.source || state.zoom <= 1;
}

// ---- the controls' state ----------------------------------------------------------------

export function updateControls() {
  const has = Boolean(state.source);
  ui.playPause.disabled = !has && !state.files.some((file) => !file.error);
  ui.direction.disabled = !has;
  ui.direction.textContent = state.direction === BACKWARDS ? 'Backwards' : 'Forwards';
  ui.direction.setAttribute('aria-pressed', String(state.direction === BACKWARDS));
  ui.scrub.disabled = !has;
  ui.loopIn.disabled = !has;
  ui.loopOut.disabled = !has;
  updateTrimButton();
  updateLoopLabel();
  updateZoom();
  updatePlayButton();
}

function updatePlayButton() {
  const label = audio.paused ? 'Play' : 'Pause';
  ui.playPause.textContent = label;
  ui.playPause.setAttribute('aria-label', label);
  ui.playPause.classList.toggle('playing', !audio.paused);
}

// Time, slider and waveform, as the element is now.
export function refresh() {
  const d = duration();
  const t = fileTime();
  ui.time.textContent = `${formatTime(t)} / ${formatTime(d)}`;
  if (String(ui.scrub.max) !== String(d)) ui.scrub.max = String(d || 0);
  if (!state.scrubbing) ui.scrub.value = String(t);
  ui.scrub.setAttribute('aria-valuetext', `${formatTime(t)} of ${formatTime(d)}`);
  if (!audio.paused) state.viewStart = followedViewStart(t, state.viewStart, span(), d, backwards());
  draw();
}

function tick() {
  state.frame = 0;
  enforceLoop();
  refresh();
  if (!audio.paused) state.frame = requestAnimationFrame(tick);
}

audio.addEventListener('loadedmetadata', () => {
  if (state.pendingSeek !== null) {
    const at = state.pendingSeek;
    state.pendingSeek = null;
    if (Math.abs(audio.currentTime - at) > 0.01) audio.currentTime = at;
  }
  updateControls();
  refresh();
});
audio.addEventListener('play', () => {
  updatePlayButton();
  if (!state.frame) state.frame = requestAnimationFrame(tick);
});
audio.addEventListener('pause', () => { updatePlayButton(); refresh(); });
audio.addEventListener('seeked', refresh);
audio.addEventListener('timeupdate', () => {
  enforceLoop();
  if (audio.paused) refresh();
});
audio.addEventListener('durationchange', refresh);
audio.addEventListener('ended', ended);
audio.addEventListener('error', () => {
  if (audio.getAttribute('src')) explainFailure();
});

ui.playPause.addEventListener('click', togglePlay);
ui.direction.addEventListener('click', toggleDirection);
ui.zoomIn.addEventListener('click', () => setZoom(state.zoom * 2));
ui.zoomOut.addEventListener('click', () => setZoom(state.zoom / 2));
ui.loopIn.addEventListener('click', () => setLoopPoint('in'));
ui.loopOut.addEventListener('click', () => setLoopPoint('out'));
ui.loopClear.addEventListener('click', clearLoop);
ui.loopWhole.addEventListener('click', toggleWholeLoop);
ui.scrub.addEventListener('pointerdown', () => { state.scrubbing = true; });
ui.scrub.addEventListener('input', () => { state.scrubbing = true; seek(parseFloat(ui.scrub.value)); });
ui.scrub.addEventListener('change', () => { seek(parseFloat(ui.scrub.value)); state.scrubbing = false; });
ui.scrub.addEventListener('pointerup', () => { state.scrubbing = false; });
ui.scrub.addEventListener('blur', () => { state.scrubbing = false; });

// A read-only view of the player, for tests and the curious.
export function snapshot() {
  return {
    src: audio.currentSrc || audio.src,
    direction: state.direction,
    fileTime: fileTime(),
    duration: duration(),
    playing: !audio.paused,
    source: state.source ? { kind: state.source.shelf === 'files' ? 'file' : 'result', shelf: state.source.shelf, name: state.source.name } : null,
    zoom: state.zoom,
    loop: { in: state.loopIn, out: state.loopOut, wholeFile: state.loopsWholeFile },
    waveform: state.wave ? { samplesPerPixel: state.wave.spp, length: state.wave.length, complete: state.wave.filled === state.wave.length } : null,
  };
}
