// Trim: a region selected by dragging across the waveform (or typed), cut exactly by a trim
// job in the file's own format, its result listed with the others and offered for download.
import { startJob, followJob, enc } from './api.mjs';
import { $, say } from './dom.mjs';
import { formatTime } from './format.mjs';
import { state } from './state.mjs';
import { clamp } from './timeline.mjs';
import { duration } from './player.mjs';
import { draw } from './waveform.mjs';
import { refreshResults } from './results.mjs';

const ui = {
  form: $('trim-form'), start: $('trim-start'), end: $('trim-end'), trim: $('trim'),
  progress: $('trim-progress'), result: $('trim-result'),
};

// The job input naming the player's source (a folder file, a result or an upload).
export function jobInput(source) {
  return source.shelf === 'files' ? { file: source.name } : source.shelf === 'results' ? { result: source.name } : { upload: source.name };
}

export function resetTrim() {
  ui.start.value = '';
  ui.end.value = '';
  ui.result.hidden = true;
  say(ui.form, '');
}

export function updateTrimButton() {
  const start = parseFloat(ui.start.value);
  const end = parseFloat(ui.end.value);
  const valid = Boolean(state.source) && Number.isFinite(start) && Number.isFinite(end) && start >= 0 && end > start
    && start < duration() && end <= duration() + 0.0005;
  for (const input of [ui.start, ui.end]) input.disabled = !state.source;
  ui.trim.disabled = !valid || Boolean(state.trimJob);
}

// Milliseconds, rounded inwards (the region never grows past what was selected); the file's
// end stays its end (sent as no end at all).
export function setSelection(a, b) {
  const d = duration();
  const start = clamp(Math.min(a, b), 0, d);
  const end = clamp(Math.max(a, b), 0, d);
  ui.start.value = (Math.ceil(start * 1000 - 1e-6) / 1000).toFixed(3);
  ui.end.value = end >= d - 1e-6 ? d.toFixed(3) : (Math.floor(end * 1000 + 1e-6) / 1000).toFixed(3);
  updateTrimButton();
  draw();
}

async function trimRegion(event) {
  event.preventDefault();
  const source = state.source;
  if (!source || state.trimJob) return;
  const start = parseFloat(ui.start.value);
  const end = parseFloat(ui.end.value);
  if (!(Number.isFinite(start) && Number.isFinite(end) && end > start && start >= 0)) {
    say(ui.form, 'Trim: give a start before the end.');
    return;
  }
  if (end > duration() + 0.0005) {
    say(ui.form, `Trim: the end is after the file's end (${formatTime(duration(), 3)}).`);
    return;
  }
  // An end shown rounded to the millisecond at the file's end means the end itself: sent as
  // none, so that a rounding up past the last frame cannot fail the cut.
  const range = end >= duration() - 0.0005 ? { start } : { start, end };
  state.trimJob = true;
  updateTrimButton();
  say(ui.form, '');
  ui.result.hidden = true;
  ui.progress.hidden = false;
  ui.progress.value = 0;
  ui.progress.setAttribute('aria-label', `Trimming ${source.title}`);
  const finish = () => {
    state.trimJob = null;
    ui.progress.hidden = true;
    updateTrimButton();
  };
  let started;
  try {
    started = await startJob({ ...jobInput(source), operation: 'trim', ...range });
  } catch (error) {
    finish();
    say(ui.form, `Trim failed: ${error.message}`);
    return;
  }
  followJob(started.id, {
    progress: (status) => { ui.progress.value = status.fraction; },
    done: (status) => {
      finish();
      ui.result.href = `/api/jobs/${enc(status.id)}/result`;
      ui.result.setAttribute('download', status.output);
      ui.result.title = status.output;
      ui.result.setAttribute('aria-label', `Download trim: ${status.output}`);
      ui.result.dataset.job = status.id;
      ui.result.hidden = false;
      say(ui.form, `Trimmed ${formatTime(start, 3)}–${formatTime(end, 3)} of ${source.title} into ${status.output}.`, 'info');
      refreshResults();
    },
    failed: (status) => {
      finish();
      say(ui.form, `Trim failed: ${status.error || 'unknown error'}`);
    },
  });
}

ui.form.addEventListener('submit', trimRegion);
for (const input of [ui.start, ui.end]) {
  input.addEventListener('input', () => { updateTrimButton(); draw(); });
  input.addEventListener('change', () => { updateTrimButton(); draw(); });
}
