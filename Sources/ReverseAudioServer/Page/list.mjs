// The folder's files: a row each with Play and Reverse (a file FFmpeg cannot read is listed
// with the reason instead), a filter, and each Reverse job's progress, result and errors in
// its own row.
import { api, startJob, followJob, cancelJob, enc } from './api.mjs';
import { $, element, say } from './dom.mjs';
import { formatTime, formatRate, formatChannels, matchesFilter, nameParts } from './format.mjs';
import { state, sourceKey } from './state.mjs';
import { play, onSourceChange, updateControls } from './player.mjs';
import { refreshResults, playResult } from './results.mjs';

const ui = { rows: $('file-rows'), refresh: $('refresh'), filter: $('filter'), count: $('file-count'), card: $('files-card') };
let rows = new Map(); // name → <tr>
let listing = 0; // the newest listing's number: an older one's answer is dropped

// Lists the folder: the names at once (files the server has not read yet are pending), then
// their lengths and formats as the server reads them.
export async function loadFiles() {
  const generation = ++listing;
  ui.refresh.disabled = true;
  say(ui.card, '');
  try {
    const known = await api('/api/files?details=known');
    if (generation !== listing) return;
    state.files = known;
    render();
    updateControls();
    if (known.some((file) => file.pending)) {
      const described = await api('/api/files');
      if (generation !== listing) return;
      state.files = described;
      render();
      updateControls();
    }
  } catch (error) {
    if (generation !== listing) return;
    ui.rows.replaceChildren(placeholder(`Could not list the files: ${error.message}`));
    say(ui.card, `Could not list the files: ${error.message}`);
  } finally {
    ui.refresh.disabled = false;
  }
}

function placeholder(text) {
  return element('tr', { class: 'placeholder' }, [element('td', { colSpan: 4, text })]);
}

// The player's source for a row.
const sourceOf = (file) => ({ shelf: 'files', title: file.name, ...file });

function render() {
  const files = state.files;
  const shown = files.filter((file) => matchesFilter(file, ui.filter.value));
  ui.count.textContent = shown.length === files.length ? `${files.length} files` : `${shown.length} of ${files.length} files`;
  if (!files.length) {
    rows.clear();
    ui.rows.replaceChildren(placeholder('No audio files in this folder.'));
    return;
  }
  if (!shown.length) {
    ui.rows.replaceChildren(placeholder('No file matches the filter.'));
    return;
  }
  const seen = new Map();
  const ordered = files.map((file) => {
    let tr = rows.get(file.name);
    if (!tr || Boolean(tr.file.error) !== Boolean(file.error)) tr = makeRow(file);
    tr.file = file;
    fill(tr, file);
    seen.set(file.name, tr);
    return tr;
  });
  rows = seen;
  ui.rows.replaceChildren(...ordered.filter((tr) => matchesFilter(tr.file, ui.filter.value)));
  markCurrent(state.source);
}

function makeRow(file) {
  const tr = element('tr', { 'data-name': file.name });
  const nameCell = element('td', { class: 'name' });
  const durationCell = element('td', { class: 'duration' });
  const formatCell = element('td', { class: 'format' });
  const job = element('div', { class: 'job', 'aria-live': 'polite' });
  const buttons = element('div', { class: 'buttons' });
  if (!file.error) {
    const playButton = element('button', { type: 'button', class: 'play', text: 'Play', 'aria-label': `Play ${file.name}` });
    const reverse = element('button', { type: 'button', class: 'reverse', text: 'Reverse', 'aria-label': `Reverse ${file.name}` });
    playButton.addEventListener('click', () => playRow(tr));
    reverse.addEventListener('click', () => reverseFile(tr));
    buttons.append(playButton, reverse);
    tr.parts = { reverse, job };
  } else {
    tr.classList.add('unreadable');
    tr.parts = { job };
  }
  const actions = element('td', { class: 'actions' }, [element('div', { class: 'row-actions' }, [buttons, job])]);
  tr.append(nameCell, durationCell, formatCell, actions);
  tr.parts = { ...tr.parts, nameCell, durationCell, formatCell };
  return tr;
}

// Plays a row's file; one the list has not described yet is described first (its length is
// what the player draws and mirrors by), its reason beside the row if it cannot be read.
async function playRow(tr) {
  if (tr.file.pending) {
    const place = tr.parts.job.parentElement;
    say(place, '');
    try {
      tr.file = await api(`/api/files/${enc(tr.file.name)}`);
    } catch (error) {
      say(place, `Cannot play ${tr.file.name}: ${error.message}`);
      return;
    }
    fill(tr, tr.file);
  }
  play(sourceOf(tr.file));
}

function fill(tr, file) {
  const { nameCell, durationCell, formatCell } = tr.parts;
  const { folder, base } = nameParts(file.name);
  nameCell.replaceChildren(
    ...(folder ? [element('span', { class: 'folder', text: folder })] : []),
    element('span', { class: 'base', text: base }));
  nameCell.title = file.name;
  tr.toggleAttribute('data-pending', Boolean(file.pending));
  if (file.error) {
    durationCell.textContent = '—';
    formatCell.replaceChildren(element('span', { class: 'tag', text: (file.format || '?').toUpperCase() }));
    tr.parts.job.replaceChildren(element('span', { class: 'unreadable-reason', text: `Cannot be read: ${file.error}` }));
    return;
  }
  if (file.pending) {
    durationCell.textContent = '…';
    formatCell.replaceChildren(element('span', { class: 'tag', text: (file.format || '?').toUpperCase() }));
    return;
  }
  durationCell.textContent = formatTime(file.duration, 1);
  formatCell.replaceChildren(
    element('span', { class: 'tag', text: file.format.toUpperCase() }),
    element('span', { class: 'detail', text: `${formatRate(file.sampleRate)} · ${formatChannels(file.channels)}` }));
}

function markCurrent(source) {
  const key = sourceKey(source);
  for (const [name, tr] of rows) {
    const current = key === `files/${name}`;
    tr.classList.toggle('current', current);
    if (current) tr.setAttribute('aria-current', 'true'); else tr.removeAttribute('aria-current');
  }
}

async function reverseFile(tr) {
  const file = tr.file;
  const { reverse, job } = tr.parts;
  const place = job.parentElement;
  reverse.disabled = true;
  say(place, '');
  const bar = element('progress', { max: 1, value: 0, 'aria-label': `Reversing ${file.name}` });
  const percent = element('span', { class: 'percent', text: '0%' });
  const cancel = element('button', { type: 'button', class: 'small', text: 'Cancel', 'aria-label': `Cancel reversing ${file.name}` });
  job.replaceChildren(bar, percent, cancel);
  let started;
  try {
    // No output named: the server names it as the reverse command does (NAME-REVERSED.EXT).
    started = await startJob({ file: file.name, operation: 'reverse' });
  } catch (error) {
    job.replaceChildren();
    say(place, `Reverse failed: ${error.message}`);
    reverse.disabled = false;
    return;
  }
  cancel.addEventListener('click', () => {
    cancel.disabled = true;
    cancelJob(started.id).catch((error) => say(place, `Could not cancel: ${error.message}`));
  });
  followJob(started.id, {
    progress: (status) => {
      bar.value = status.fraction;
      percent.textContent = `${Math.floor(status.fraction * 100)}%`;
    },
    done: (status) => {
      reverse.disabled = false;
      const link = element('a', {
        class: 'button link', text: 'Download', download: status.output, href: `/api/jobs/${enc(status.id)}/result`,
        'aria-label': `Download reversed ${file.name}`, title: status.output,
      });
      const playButton = element('button', { type: 'button', class: 'play-result', text: 'Play result', 'aria-label': `Play result: reversed ${file.name}` });
      playButton.addEventListener('click', () => playResult(status.output));
      job.replaceChildren(link, playButton);
      refreshResults();
    },
    failed: (status) => {
      reverse.disabled = false;
      if (status.error === 'cancelled') {
        job.replaceChildren(element('span', { class: 'muted', text: 'Cancelled.' }));
      } else {
        job.replaceChildren();
        say(place, `Reverse failed: ${status.error || 'unknown error'}`);
      }
    },
  });
}

onSourceChange(markCurrent);
ui.refresh.addEventListener('click', loadFiles);
ui.filter.addEventListener('input', render);
