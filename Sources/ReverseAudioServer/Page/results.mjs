// The results: every file jobs wrote into the output folder, listed from the server (so they
// are there after a reload), newest first, each with Play result (the same player as the
// folder's files: both directions, the waveform, loops, trim) and Download; and the entries of
// uploads and recordings on their way.
import { api, enc } from './api.mjs';
import { $, element, say } from './dom.mjs';
import { formatTime } from './format.mjs';
import { play } from './player.mjs';

const ui = { list: $('results'), card: $('results-card') };
let known = new Map(); // name → its row from /api/results

// Plays result `name` (fetching the list first when it is not known yet).
export async function playResult(name) {
  if (!known.has(name)) await refreshResults();
  const row = known.get(name);
  if (!row) {
    say(ui.card, `${name}: no such result (it may have been removed)`);
    return;
  }
  play({ shelf: 'results', title: row.name, ...row });
}

// Fills `li` as the entry of result `row`: its name and length, Play result (or the video
// itself) and Download.
function fill(li, row) {
  const download = element('a', {
    class: 'button link', text: 'Download', download: row.name, href: `/api/results/${enc(row.name)}/download`,
    'aria-label': `Download ${row.name}`,
  });
  const detail = row.kind === 'video' ? 'video' : formatTime(row.duration, 1);
  const head = element('div', { class: 'result-head' }, [element('strong', { class: 'result-name', text: row.name }), element('span', { class: 'step muted', text: detail })]);
  const body = element('div', { class: 'result-body' });
  if (row.kind === 'video') {
    const video = element('video', { class: 'clip', controls: true, playsInline: true, preload: 'metadata', 'aria-label': `Result: ${row.name}` });
    video.src = `/api/results/${enc(row.name)}/download`;
    body.append(video, download);
  } else {
    const playButton = element('button', { type: 'button', class: 'play-result', text: 'Play result', 'aria-label': `Play result: ${row.name}` });
    playButton.addEventListener('click', () => playResult(row.name));
    body.append(playButton, download);
  }
  li.replaceChildren(head, body);
  li.className = 'result';
  li.dataset.state = 'done';
  li.dataset.name = row.name;
}

const entries = new Map(); // name → its <li>, kept across refreshes

export async function refreshResults() {
  let rows;
  try {
    rows = await api('/api/results');
  } catch (error) {
    say(ui.card, `Could not list the results: ${error.message}`);
    return;
  }
  say(ui.card, '');
  known = new Map(rows.map((row) => [row.name, row]));
  const owned = new Set(entries.values());
  const pending = [...ui.list.querySelectorAll(':scope > li.result')].filter((li) => !owned.has(li) && li.dataset.state !== 'done');
  const shown = rows.map((row) => {
    let li = entries.get(row.name);
    if (!li) {
      li = element('li');
      entries.set(row.name, li);
    }
    fill(li, row);
    return li;
  });
  for (const name of [...entries.keys()]) if (!known.has(name)) entries.delete(name);
  ui.list.replaceChildren(...pending, ...shown);
  if (!rows.length && !pending.length) ui.list.replaceChildren(element('li', { class: 'placeholder muted', text: 'Nothing yet: Reverse a file, or bring one.' }));
}

// One entry of a file on its way up, through its job, and back: it becomes the result's own
// entry once done (`complete(name)`).
export function pendingEntry(label) {
  const bar = element('progress', { max: 1, value: 0, 'aria-label': `Progress of ${label}` });
  const step = element('span', { class: 'step', text: 'Uploading…' });
  const li = element('li', { class: 'result', 'data-state': 'uploading' }, [
    element('div', { class: 'result-head' }, [element('strong', { text: label }), step, bar])]);
  const placeholderRow = ui.list.querySelector(':scope > li.placeholder');
  if (placeholderRow) placeholderRow.remove();
  ui.list.prepend(li);
  const fail = (text) => {
    li.dataset.state = 'failed';
    bar.hidden = true;
    step.textContent = '';
    say(li, text);
  };
  // Done once filled (refreshResults fills it as the result's entry, with its links).
  const complete = async (name) => {
    entries.set(name, li);
    await refreshResults();
    if (!known.has(name)) fail(`${name}: made, but not in the output folder`);
  };
  return { li, bar, step, fail, complete };
}
