// The user's own files: dropped anywhere on the page, chosen with the file picker, or named
// by a URL (when the server fetches from some host), uploaded, reversed (a video as the
// choice says) and listed with the results.
import { api, upload, startJob, followJob } from './api.mjs';
import { $ } from './dom.mjs';
import { pendingEntry } from './results.mjs';

const ui = {
  form: $('upload-form'), file: $('upload-file'), drop: $('drop-zone'), video: $('upload-video'),
  urlForm: $('url-form'), url: $('url-input'), urlHosts: $('url-hosts'),
};

// Runs the job an upload (or a URL) calls for and shows its way: audio reversed, a video as
// `videoOperation` says.
function runJob(entry, request, video, operation) {
  entry.li.dataset.state = 'running';
  entry.bar.value = 0;
  entry.step.textContent = video ? (operation === 'boomerang' ? 'Making the boomerang…' : 'Reversing the video…') : 'Reversing…';
  startJob(request).then((started) => followJob(started.id, {
    progress: (status) => { entry.bar.value = status.fraction; },
    done: (status) => entry.complete(status.output),
    failed: (status) => entry.fail(`Failed: ${status.error || 'unknown error'}`),
  }), (error) => entry.fail(`Could not start: ${error.message}`));
}

// Uploads `blob` (named `name`), then reverses it (a video as `videoOperation` says; `crf` the
// video's quality, the server's default unless given).
export async function bringFile(blob, name, videoOperation, crf) {
  const entry = pendingEntry(name);
  let uploaded;
  try {
    uploaded = await upload(blob, name, (fraction) => {
      entry.bar.value = fraction;
      entry.step.textContent = `Uploading ${Math.floor(fraction * 100)}%`;
    });
  } catch (error) {
    entry.fail(`Upload failed: ${error.message}`);
    return;
  }
  const video = uploaded.kind === 'video';
  const operation = video ? videoOperation : 'reverse';
  const request = { upload: uploaded.name, operation };
  if (video && crf !== undefined) request.crf = crf;
  runJob(entry, request, video, operation);
}

function bringChosen(files) {
  for (const file of files) bringFile(file, file.name, ui.video.value);
}

ui.file.addEventListener('change', () => {
  bringChosen([...ui.file.files]);
  ui.file.value = '';
});
ui.form.addEventListener('submit', (event) => event.preventDefault());

// A file dropped anywhere on the page is brought, never opened by the browser in its place.
const carriesFiles = (event) => event.dataTransfer && [...event.dataTransfer.types].includes('Files');
for (const name of ['dragenter', 'dragover']) {
  document.addEventListener(name, (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    document.body.classList.add('dropping');
  });
}
document.addEventListener('dragleave', (event) => {
  if (!event.relatedTarget) document.body.classList.remove('dropping');
});
document.addEventListener('drop', (event) => {
  if (!carriesFiles(event)) return;
  event.preventDefault();
  document.body.classList.remove('dropping');
  if (event.dataTransfer.files.length) bringChosen([...event.dataTransfer.files]);
});

// The URL field, shown when the server fetches from some host (serve --allow-url-hosts).
export async function setUpURLs() {
  let settings;
  try { settings = await api('/api/settings'); } catch { return; }
  if (!settings || !settings.urlHosts || !settings.urlHosts.length) return;
  ui.urlHosts.textContent = settings.urlHosts.join(', ');
  ui.urlForm.hidden = false;
}

ui.urlForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const address = ui.url.value.trim();
  if (!address || !ui.url.checkValidity()) return;
  const entry = pendingEntry(address);
  runJob(entry, { url: address, operation: 'reverse' }, false, 'reverse');
  ui.url.value = '';
});
