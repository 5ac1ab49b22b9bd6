// The JSON API of `reverse-audio serve`, as the page calls it: answers decoded, failures as
// Errors carrying the server's own message, jobs followed to their end, uploads with progress.

export const enc = (name) => encodeURIComponent(name);

// A call to the JSON API: the decoded answer, or an Error with the server's message.
export async function api(path, options = {}) {
  let response;
  try {
    response = await fetch(path, { credentials: 'same-origin', ...options });
  } catch (error) {
    throw new Error(`the server did not answer (${error.message})`);
  }
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch { body = null; }
  if (!response.ok) {
    const message = body && body.error && body.error.message ? body.error.message : `${response.status} ${response.statusText}`;
    throw new Error(message);
  }
  return body;
}

// Starts a job (`request` as POST /api/jobs takes it); its first status.
export function startJob(request) {
  return api('/api/jobs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request) });
}

export function cancelJob(id) {
  return api(`/api/jobs/${enc(id)}`, { method: 'DELETE' });
}

// Follows job `id` to its end: progress(status) for each step, then done(status) or failed(status).
export function followJob(id, { progress, done, failed }) {
  let finished = false;
  const finish = (status) => {
    if (finished) return;
    finished = true;
    if (status.status === 'done') done(status); else failed(status);
  };
  const poll = async () => {
    while (!finished) {
      try {
        const status = await api(`/api/jobs/${enc(id)}`);
        if (status.status === 'running') progress(status); else finish(status);
      } catch (error) {
        finish({ id, status: 'failed', error: error.message, fraction: 0 });
      }
      if (!finished) await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };
  if (!('EventSource' in window)) { poll(); return; }
  const events = new EventSource(`/api/jobs/${enc(id)}/events`);
  const on = (name, handler) => events.addEventListener(name, (event) => {
    let status;
    try { status = JSON.parse(event.data); } catch { return; }
    handler(status);
  });
  on('progress', (status) => { if (!finished) progress(status); });
  on('done', (status) => { events.close(); finish(status); });
  on('failed', (status) => { events.close(); finish(status); });
  events.onerror = () => {
    if (finished) return;
    events.close();
    poll();
  };
}

// Sends `blob` as the form's file field, named `name`; resolves to the server's {name, title, kind, …}.
export function upload(blob, name, onProgress) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append('file', blob, name);
    const request = new XMLHttpRequest();
    request.open('POST', '/api/uploads');
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    });
    request.addEventListener('load', () => {
      let body = null;
      try { body = JSON.parse(request.responseText); } catch { body = null; }
      if (request.status >= 200 && request.status < 300 && body) resolve(body);
      else reject(new Error(body && body.error && body.error.message ? body.error.message : `${request.status} ${request.statusText}`));
    });
    request.addEventListener('error', () => reject(new Error('the upload did not reach the server')));
    request.send(form);
  });
}

// The routes of a playable item: a folder file, a result or an upload (its shelf) by name.
export function mediaPath(source, what) {
  return `/api/${source.shelf}/${enc(source.name)}/${what}`;
}
