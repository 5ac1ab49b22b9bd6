// The page of `reverse-audio serve`: the folder's files, a player that plays any of them forwards
// or backwards (the server's virtual WAVs in one <audio> element), its waveform, loop points,
// reverse and trim jobs, and the user's own files: uploaded (drop zone, file picker) or recorded
// from the camera, reversed or made a boomerang, and handed back. Plain JavaScript, no build
// step; it uses the JSON API alone.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const audio = $('player');
  const canvas = $('waveform');
  const ui = {
    rows: $('file-rows'), status: $('status'), now: $('now-playing'), waveEmpty: $('wave-empty'),
    playPause: $('play-pause'), direction: $('direction'), scrub: $('scrub'), time: $('time'),
    zoomIn: $('zoom-in'), zoomOut: $('zoom-out'), zoomLevel: $('zoom-level'),
    loopIn: $('loop-in'), loopOut: $('loop-out'), loopClear: $('loop-clear'), loopRange: $('loop-range'),
    trimForm: $('trim-form'), trimStart: $('trim-start'), trimEnd: $('trim-end'), trim: $('trim'),
    trimProgress: $('trim-progress'), trimResult: $('trim-result'), trimHint: $('trim-hint'),
    refresh: $('refresh'),
    uploadForm: $('upload-form'), uploadFile: $('upload-file'), dropZone: $('drop-zone'), uploadVideo: $('upload-video'),
    results: $('results'), preview: $('camera-preview'), record: $('record'), stop: $('stop'),
    cameraMode: $('camera-mode'), cameraLossless: $('camera-lossless'), cameraTime: $('camera-time'),
  };

  const FORWARDS = 'forwards';
  const BACKWARDS = 'backwards';
  const MAX_ZOOM = 128;

  const state = {
    files: [],
    rows: new Map(),         // name → <tr>
    // What the player holds: {kind: 'file', file} or {kind: 'result', file, job, mirror}.
    source: null,
    direction: FORWARDS,
    pendingSeek: null,       // an audio time to set once the new source's metadata is in
    loopIn: null,
    loopOut: null,
    zoom: 1,
    viewStart: 0,            // file time at the canvas's left edge
    wave: null,              // the waveform drawn: {name, spp, rate, length, mins, maxs}
    waveCache: new Map(),    // "name|spp" → Promise of a waveform
    drag: null,              // a press on the waveform: {x, t, moved}
    scrubbing: false,
    frame: 0,
    trimJob: null,
  };

  // ---- helpers ----------------------------------------------------------------------------

  const enc = (name) => encodeURIComponent(name);

  function formatTime(seconds, decimals = 2) {
    if (!Number.isFinite(seconds) || seconds < 0) seconds = 0;
    const factor = 10 ** decimals;
    const total = Math.round(seconds * factor) / factor;
    const h = Math.floor(total / 3600);
    const m = Math.floor((total % 3600) / 60);
    const s = total - h * 3600 - m * 60;
    let text = s.toFixed(decimals).padStart(decimals ? decimals + 3 : 2, '0');
    text = (h ? `${h}:${String(m).padStart(2, '0')}` : `${m}`) + ':' + text;
    return text;
  }

  function formatRate(rate) {
    return rate % 1000 === 0 ? `${rate / 1000} kHz` : `${(rate / 1000).toFixed(1)} kHz`;
  }

  function formatChannels(n) {
    return n === 1 ? 'mono' : n === 2 ? 'stereo' : `${n} ch`;
  }

  // The parts of a name for an output: "sub/My Song.flac" → {stem: "My Song", ext: "flac"}.
  function nameParts(file) {
    const base = file.name.split('/').pop();
    const dot = base.lastIndexOf('.');
    let stem = dot > 0 ? base.slice(0, dot) : base;
    const ext = dot > 0 ? base.slice(dot + 1) : file.format;
    stem = stem.replace(/^\.+/, '') || 'audio';
    return { stem, ext };
  }

  const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

  function setStatus(text, error = false) {
    ui.status.textContent = text;
    ui.status.classList.toggle('error', error);
  }

  // A call to the JSON API: the decoded answer, or an Error with the server's message.
  async function api(path, options = {}) {
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

  // Follows job `id` to its end: progress(status) for each step, then done(status) or failed(status).
  function followJob(id, { progress, done, failed }) {
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

  // ---- the list ---------------------------------------------------------------------------

  async function loadFiles() {
    ui.refresh.disabled = true;
    try {
      const files = await api('/api/files');
      state.files = files;
      renderFiles(files);
      updateControls();
      if (!files.length) setStatus('No audio files in this folder.');
    } catch (error) {
      ui.rows.replaceChildren(placeholderRow(`Could not list the files: ${error.message}`));
      setStatus(`Could not list the files: ${error.message}`, true);
    } finally {
      ui.refresh.disabled = false;
    }
  }

  function placeholderRow(text) {
    const tr = document.createElement('tr');
    tr.className = 'placeholder';
    const td = document.createElement('td');
    td.colSpan = 4;
    td.textContent = text;
    tr.append(td);
    return tr;
  }

  function element(tag, properties = {}, children = []) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(properties)) {
      if (key === 'class') node.className = value;
      else if (key === 'text') node.textContent = value;
      else if (key.startsWith('aria-') || key.startsWith('data-') || key === 'download' || key === 'href') node.setAttribute(key, value);
      else node[key] = value;
    }
    node.append(...children);
    return node;
  }

  function renderFiles(files) {
    if (!files.length) {
      state.rows.clear();
      ui.rows.replaceChildren(placeholderRow('No audio files in this folder.'));
      return;
    }
    const seen = new Map();
    const ordered = files.map((file) => {
      let tr = state.rows.get(file.name);
      if (!tr) tr = makeRow(file);
      tr.file = file;
      fillRow(tr, file);
      seen.set(file.name, tr);
      return tr;
    });
    state.rows = seen;
    ui.rows.replaceChildren(...ordered);
    markCurrentRow();
  }

  function makeRow(file) {
    const tr = element('tr', { 'data-name': file.name });
    const nameCell = element('td', { class: 'name' });
    const durationCell = element('td', { class: 'duration' });
    const formatCell = element('td', { class: 'format' });
    const play = element('button', { type: 'button', class: 'play', text: 'Play', 'aria-label': `Play ${file.name}` });
    const reverse = element('button', { type: 'button', class: 'reverse', text: 'Reverse', 'aria-label': `Reverse ${file.name}` });
    const job = element('div', { class: 'job', 'aria-live': 'polite' });
    const actions = element('td', { class: 'actions' }, [element('div', { class: 'row-actions' }, [element('div', { class: 'buttons' }, [play, reverse]), job])]);
    play.addEventListener('click', () => playFile(tr.file));
    reverse.addEventListener('click', () => reverseFile(tr));
    tr.append(nameCell, durationCell, formatCell, actions);
    tr.parts = { nameCell, durationCell, formatCell, play, reverse, job };
    return tr;
  }

  function fillRow(tr, file) {
    const { nameCell, durationCell, formatCell } = tr.parts;
    const slash = file.name.lastIndexOf('/');
    const folder = slash >= 0 ? file.name.slice(0, slash + 1) : '';
    nameCell.replaceChildren(
      ...(folder ? [element('span', { class: 'folder', text: folder })] : []),
      element('span', { class: 'base', text: file.name.slice(slash + 1) }));
    nameCell.title = file.name;
    durationCell.textContent = formatTime(file.duration, 1);
    formatCell.replaceChildren(
      element('span', { class: 'tag', text: file.format.toUpperCase() }),
      element('span', { class: 'detail', text: `${formatRate(file.sampleRate)} · ${formatChannels(file.channels)}` }));
  }

  function markCurrentRow() {
    const name = state.source ? state.source.file.name : null;
    for (const [rowName, tr] of state.rows) {
      const current = rowName === name;
      tr.classList.toggle('current', current);
      if (current) tr.setAttribute('aria-current', 'true'); else tr.removeAttribute('aria-current');
    }
  }

  // ---- reverse jobs -----------------------------------------------------------------------

  async function reverseFile(tr) {
    const file = tr.file;
    const { reverse, job } = tr.parts;
    const { stem } = nameParts(file);
    const output = `${stem}-reversed-${Date.now()}.wav`;
    reverse.disabled = true;
    const bar = element('progress', { max: 1, value: 0, 'aria-label': `Reversing ${file.name}` });
    const percent = element('span', { class: 'percent', text: '0%' });
    const cancel = element('button', { type: 'button', class: 'small', text: 'Cancel', 'aria-label': `Cancel reversing ${file.name}` });
    job.replaceChildren(bar, percent, cancel);
    let started;
    try {
      started = await api('/api/jobs', {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ file: file.name, operation: 'reverse', output }),
      });
    } catch (error) {
      job.replaceChildren(element('span', { class: 'error', text: `Reverse failed: ${error.message}` }));
      reverse.disabled = false;
      return;
    }
    cancel.addEventListener('click', () => {
      cancel.disabled = true;
      api(`/api/jobs/${enc(started.id)}`, { method: 'DELETE' }).catch((error) => setStatus(`Could not cancel: ${error.message}`, true));
    });
    followJob(started.id, {
      progress: (status) => {
        bar.value = status.fraction;
        percent.textContent = `${Math.floor(status.fraction * 100)}%`;
      },
      done: (status) => {
        reverse.disabled = false;
        const link = element('a', {
          class: 'button link', text: 'Download', download: status.output || output,
          href: `/api/jobs/${enc(status.id)}/result`, 'aria-label': `Download reversed ${file.name}`,
          title: status.output || output,
        });
        const play = element('button', { type: 'button', class: 'play-result', text: 'Play result', 'aria-label': `Play result: reversed ${file.name}` });
        play.addEventListener('click', () => playResult(file, status));
        job.replaceChildren(link, play);
        setStatus(`Reversed ${file.name} into ${status.output || output}.`);
      },
      failed: (status) => {
        reverse.disabled = false;
        const why = status.error === 'cancelled' ? 'Cancelled.' : `Reverse failed: ${status.error || 'unknown error'}`;
        job.replaceChildren(element('span', { class: status.error === 'cancelled' ? 'muted' : 'error', text: why }));
      },
    });
  }

  // ---- your own files: uploads and the camera ---------------------------------------------

  // The formats the audio jobs write: an upload in one of them comes back in it, anything else as WAV.
  const WRITTEN = new Set(['mp3', 'm4a', 'flac', 'wav', 'aiff', 'aif', 'caf', 'aac']);

  // Sends `blob` as the form's file field, named `name`; resolves to the server's {name, kind, …}.
  function upload(blob, name, onProgress) {
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

  // One entry of the results list: a file on its way up, through its job, and back.
  function resultEntry(label) {
    const bar = element('progress', { max: 1, value: 0, 'aria-label': `Progress of ${label}` });
    const step = element('span', { class: 'step', text: 'Uploading…' });
    const body = element('div', { class: 'result-body' });
    const li = element('li', { class: 'result', 'data-state': 'uploading' }, [
      element('div', { class: 'result-head' }, [element('strong', { text: label }), step, bar]), body]);
    ui.results.prepend(li);
    const fail = (text) => {
      li.dataset.state = 'failed';
      bar.hidden = true;
      step.className = 'step error';
      step.textContent = text;
    };
    return { li, bar, step, body, fail };
  }

  // Uploads `blob` (named `name`), runs the job its kind calls for and shows the result:
  // audio reversed (in its own format when the jobs write it), a video as `videoOperation` says.
  async function bringFile(blob, name, videoOperation, crf) {
    const entry = resultEntry(name);
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
    const { stem, ext } = nameParts({ name: uploaded.name, format: 'wav' });
    const operation = video ? videoOperation : 'reverse';
    const outputExt = video ? 'mp4' : (WRITTEN.has(ext.toLowerCase()) ? ext : 'wav');
    const output = `${stem}-${video ? operation.replace('reverse-video', 'reversed') : 'reversed'}.${outputExt}`;
    const request = { upload: uploaded.name, operation, output };
    if (video && crf !== undefined) request.crf = crf;
    entry.li.dataset.state = 'running';
    entry.bar.value = 0;
    entry.step.textContent = video ? (operation === 'boomerang' ? 'Making the boomerang…' : 'Reversing the video…') : 'Reversing…';
    let started;
    try {
      started = await api('/api/jobs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request) });
    } catch (error) {
      entry.fail(`Could not start: ${error.message}`);
      return;
    }
    followJob(started.id, {
      progress: (status) => { entry.bar.value = status.fraction; },
      done: (status) => {
        entry.li.dataset.state = 'done';
        entry.li.dataset.job = status.id;
        entry.bar.hidden = true;
        entry.step.textContent = video ? (operation === 'boomerang' ? 'Boomerang ready.' : 'Reversed.') : 'Reversed.';
        const href = `/api/jobs/${enc(status.id)}/result`;
        const link = element('a', { class: 'button link', text: 'Download', download: status.output, href, 'aria-label': `Download ${status.output}` });
        if (video) {
          const player = element('video', { class: 'clip', controls: true, playsInline: true, preload: 'metadata', 'aria-label': `Result: ${status.output}` });
          player.src = href;
          entry.body.replaceChildren(player, link);
        } else {
          const play = element('button', { type: 'button', class: 'play-result', text: 'Play result', 'aria-label': `Play result: ${status.output}` });
          play.addEventListener('click', () => playResult({ name: uploaded.name, duration: uploaded.duration || 0 }, status));
          entry.body.replaceChildren(link, play);
        }
        setStatus(`${name}: ${status.output} is ready.`);
      },
      failed: (status) => entry.fail(`Failed: ${status.error || 'unknown error'}`),
    });
  }

  function bringChosen(files) {
    for (const file of files) bringFile(file, file.name, ui.uploadVideo.value);
  }

  ui.uploadFile.addEventListener('change', () => {
    bringChosen([...ui.uploadFile.files]);
    ui.uploadFile.value = '';
  });
  ui.uploadForm.addEventListener('submit', (event) => event.preventDefault());
  for (const name of ['dragenter', 'dragover']) {
    ui.dropZone.addEventListener(name, (event) => {
      event.preventDefault();
      ui.dropZone.classList.add('over');
    });
  }
  ui.dropZone.addEventListener('dragleave', () => ui.dropZone.classList.remove('over'));
  ui.dropZone.addEventListener('drop', (event) => {
    event.preventDefault();
    ui.dropZone.classList.remove('over');
    if (event.dataTransfer && event.dataTransfer.files.length) bringChosen([...event.dataTransfer.files]);
  });

  // The camera: a live preview while MediaRecorder records (WebM or MP4, whichever this browser
  // makes), then the clip goes the way of an upload.
  const camera = { stream: null, recorder: null, chunks: [], started: 0, timer: 0 };

  function recordingType() {
    const types = ['video/webm;codecs=vp9,opus', 'video/webm;codecs=vp8,opus', 'video/webm', 'video/mp4'];
    return types.find((type) => window.MediaRecorder && MediaRecorder.isTypeSupported(type)) || '';
  }

  function stopCamera() {
    if (camera.stream) camera.stream.getTracks().forEach((track) => track.stop());
    camera.stream = null;
    ui.preview.srcObject = null;
    clearInterval(camera.timer);
  }

  async function startRecording() {
    if (!navigator.mediaDevices || !window.MediaRecorder) {
      setStatus('This browser cannot record from a camera here (it needs a secure page and MediaRecorder).', true);
      return;
    }
    ui.record.disabled = true;
    try {
      camera.stream = await navigator.mediaDevices.getUserMedia({ video: true, audio: true });
    } catch (error) {
      ui.record.disabled = false;
      setStatus(`No camera: ${error.message}`, true);
      return;
    }
    ui.preview.srcObject = camera.stream;
    ui.preview.play().catch(() => {});
    const type = recordingType();
    camera.recorder = new MediaRecorder(camera.stream, type ? { mimeType: type } : {});
    camera.chunks = [];
    camera.recorder.addEventListener('dataavailable', (event) => { if (event.data.size) camera.chunks.push(event.data); });
    camera.recorder.addEventListener('stop', () => {
      const mime = camera.recorder.mimeType || type || 'video/webm';
      const blob = new Blob(camera.chunks, { type: mime });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
      stopCamera();
      ui.cameraTime.textContent = 'Camera off';
      ui.record.disabled = false;
      bringFile(blob, `camera-${stamp}.${mime.includes('mp4') ? 'mp4' : 'webm'}`, ui.cameraMode.value,
        ui.cameraLossless.checked ? 0 : undefined);
    });
    camera.recorder.start(250);
    camera.started = performance.now();
    ui.stop.disabled = false;
    ui.cameraTime.textContent = 'Recording 0.0 s';
    camera.timer = setInterval(() => {
      ui.cameraTime.textContent = `Recording ${((performance.now() - camera.started) / 1000).toFixed(1)} s`;
    }, 100);
  }

  function stopRecording() {
    ui.stop.disabled = true;
    if (camera.recorder && camera.recorder.state !== 'inactive') camera.recorder.stop();
  }

  ui.record.addEventListener('click', startRecording);
  ui.stop.addEventListener('click', stopRecording);

  // ---- the player -------------------------------------------------------------------------

  function isFile() { return state.source && state.source.kind === 'file'; }

  function duration() {
    if (!state.source) return 0;
    if (isFile()) return state.source.file.duration;
    if (Number.isFinite(audio.duration) && audio.duration > 0) return audio.duration;
    return state.source.mirror || state.source.job.operation === 'convert' ? state.source.file.duration : 0;
  }

  function backwards() { return isFile() && state.direction === BACKWARDS; }

  // The audio element's time for file time `t` (the reversed WAV plays the file from its end).
  function audioTimeFor(t) { return backwards() ? duration() - t : t; }

  function fileTime() {
    if (!state.source) return 0;
    const at = audio.readyState < 1 && state.pendingSeek !== null ? state.pendingSeek : audio.currentTime;
    const d = duration();
    return clamp(backwards() ? d - at : at, 0, d || at);
  }

  function audioURL(file, direction) {
    return `/api/files/${enc(file.name)}/audio` + (direction === BACKWARDS ? '?direction=reverse' : '');
  }

  function startPlaying() {
    const promise = audio.play();
    if (promise) {
      promise.catch((error) => {
        if (error.name !== 'AbortError') setStatus(`Could not play: ${error.message}`, true);
      });
    }
  }

  // Points the element at `url`, at audio time `at`, playing or not.
  function load(url, at, play) {
    state.pendingSeek = at > 0 ? at : null;
    audio.src = url;
    if (at > 0) {
      try { audio.currentTime = at; } catch { /* set once the metadata is in */ }
    }
    if (play) startPlaying();
    refresh();
  }

  function selectSource(source) {
    state.source = source;
    state.direction = FORWARDS;
    state.loopIn = null;
    state.loopOut = null;
    state.zoom = 1;
    state.viewStart = 0;
    if (state.wave && state.wave.name !== source.file.name) state.wave = null;
    ui.trimStart.value = '';
    ui.trimEnd.value = '';
    markCurrentRow();
    updateControls();
    loadWaveform();
  }

  function playFile(file) {
    if (isFile() && state.source.file.name === file.name) {
      if (audio.paused) startPlaying();
      return;
    }
    selectSource({ kind: 'file', file });
    ui.now.replaceChildren(element('strong', { text: file.name }),
      element('span', { class: 'muted', text: ` · ${file.format.toUpperCase()} · ${formatRate(file.sampleRate)} · ${formatChannels(file.channels)}` }));
    load(audioURL(file, FORWARDS), 0, true);
  }

  function playResult(file, job) {
    selectSource({ kind: 'result', file, job, mirror: job.operation === 'reverse' });
    const what = job.operation === 'reverse' ? 'reversed' : job.operation === 'trim' ? 'trimmed' : 'converted';
    ui.now.replaceChildren(element('strong', { text: job.output }),
      element('span', { class: 'muted', text: ` · ${what} from ${file.name}` }));
    load(`/api/jobs/${enc(job.id)}/result`, 0, true);
  }

  function togglePlay() {
    if (!state.source) {
      if (state.files.length) playFile(state.files[0]);
      return;
    }
    if (audio.paused) {
      if (audio.ended || (isFile() && audio.currentTime >= duration() - 0.01)) seekFile(backwards() ? duration() : 0);
      startPlaying();
    } else {
      audio.pause();
    }
  }

  function setDirection(direction) {
    if (!isFile() || direction === state.direction) return;
    const playing = !audio.paused;
    const d = duration();
    const t = fileTime();
    state.direction = direction;
    // The same moment of the file in the other WAV: audio time t ↔ duration − t.
    load(audioURL(state.source.file, direction), audioTimeFor(t >= d ? d : t), playing);
    updateControls();
  }

  function toggleDirection() { setDirection(state.direction === FORWARDS ? BACKWARDS : FORWARDS); }

  function seekFile(t) {
    if (!state.source) return;
    const d = duration();
    const at = clamp(audioTimeFor(clamp(t, 0, d)), 0, d);
    if (audio.readyState < 1) {
      state.pendingSeek = at;
    }
    try { audio.currentTime = at; } catch { state.pendingSeek = at; }
    followPlayhead(true);
    refresh();
  }

  function seekBy(seconds) { seekFile(fileTime() + seconds); }

  // ---- loop ---------------------------------------------------------------------------------

  function loopActive() {
    return state.loopIn !== null && state.loopOut !== null && state.loopOut - state.loopIn > 0.01;
  }

  function setLoopPoint(which) {
    if (!state.source) return;
    const t = fileTime();
    if (which === 'in') state.loopIn = t; else state.loopOut = t;
    if (state.loopIn !== null && state.loopOut !== null && state.loopOut < state.loopIn) {
      [state.loopIn, state.loopOut] = [state.loopOut, state.loopIn];
    }
    updateLoopLabel();
    draw();
  }

  function clearLoop() {
    state.loopIn = null;
    state.loopOut = null;
    updateLoopLabel();
    draw();
  }

  function updateLoopLabel() {
    const text = state.loopIn === null && state.loopOut === null ? 'Loop off'
      : `${state.loopIn === null ? '…' : formatTime(state.loopIn)} – ${state.loopOut === null ? '…' : formatTime(state.loopOut)}`;
    ui.loopRange.textContent = text;
    ui.loopRange.classList.toggle('muted', !loopActive());
    ui.loopClear.disabled = !state.source || (state.loopIn === null && state.loopOut === null);
  }

  // Keeps a playing loop inside its points, whichever way it plays.
  function enforceLoop() {
    if (!loopActive() || audio.paused || audio.seeking) return;
    const t = fileTime();
    if (!backwards() && t >= state.loopOut) seekFile(state.loopIn);
    else if (backwards() && t <= state.loopIn) seekFile(state.loopOut);
  }

  // ---- waveform -----------------------------------------------------------------------------

  function canvasWidth() {
    return Math.max(1, Math.round(canvas.clientWidth * (window.devicePixelRatio || 1)));
  }

  // Fetches (once) and keeps the waveform data fine enough for the zoom and the canvas width:
  // samples per pixel a power of two, so that widths and zooms share answers.
  async function loadWaveform() {
    if (!state.source) return;
    const file = state.source.file;
    const wanted = file.frames / (canvasWidth() * state.zoom);
    const spp = Math.max(2, 2 ** Math.floor(Math.log2(Math.max(2, wanted))));
    const key = `${file.name}|${spp}`;
    if (state.wave && state.wave.name === file.name && state.wave.spp === spp) { draw(); return; }
    let request = state.waveCache.get(key);
    if (!request) {
      request = api(`/api/files/${enc(file.name)}/waveform.json?samples-per-pixel=${spp}`).then((json) => parseWaveform(file.name, json));
      state.waveCache.set(key, request);
      if (state.waveCache.size > 24) state.waveCache.delete(state.waveCache.keys().next().value);
      request.catch(() => state.waveCache.delete(key));
    }
    try {
      const wave = await request;
      if (state.source && state.source.file.name === file.name) {
        // A coarser answer that arrives late does not replace a finer one already drawn.
        const current = state.wave && state.wave.name === file.name ? state.wave : null;
        const target = Math.max(2, 2 ** Math.floor(Math.log2(Math.max(2, file.frames / (canvasWidth() * state.zoom)))));
        if (!current || wave.spp === target || Math.abs(Math.log2(wave.spp / target)) < Math.abs(Math.log2(current.spp / target))) {
          state.wave = wave;
        }
        draw();
      }
    } catch (error) {
      setStatus(`No waveform for ${file.name}: ${error.message}`, true);
    }
  }

  // audiowaveform's JSON (version 2): per pixel, a min and a max per channel. Kept as one
  // min and max per pixel over all channels, from -1 to 1.
  function parseWaveform(name, json) {
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
    return { name, spp: json.samples_per_pixel, rate: json.sample_rate, length, mins, maxs };
  }

  let colors = null;
  function readColors() {
    const style = getComputedStyle(document.documentElement);
    const get = (name) => style.getPropertyValue(name).trim();
    colors = {
      wave: get('--wave'), played: get('--wave-played'), playhead: get('--playhead'), loop: get('--loop-fill'),
      loopEdge: get('--loop-edge'), selection: get('--selection-fill'), selectionEdge: get('--selection-edge'),
      axis: get('--axis'), label: get('--muted'),
    };
  }

  function span() { return duration() / state.zoom; }

  function timeAt(clientX) {
    const box = canvas.getBoundingClientRect();
    return clamp(state.viewStart + ((clientX - box.left) / box.width) * span(), 0, duration());
  }

  // Keeps the playhead in view: pages the view when it leaves (or centres it when asked).
  function followPlayhead(centre = false) {
    const d = duration();
    const width = span();
    if (!d || state.zoom <= 1) { state.viewStart = 0; return; }
    const t = fileTime();
    if (centre) {
      if (t < state.viewStart || t > state.viewStart + width) state.viewStart = t - width / 2;
    } else if (t < state.viewStart || t > state.viewStart + width) {
      state.viewStart = backwards() ? t - width * 0.9 : t - width * 0.1;
    }
    state.viewStart = clamp(state.viewStart, 0, Math.max(0, d - width));
  }

  function niceStep(seconds) {
    const steps = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
    return steps.find((step) => step >= seconds) || 7200;
  }

  function draw() {
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
    const wave = state.wave && state.source && state.wave.name === state.source.file.name ? state.wave : null;
    ui.waveEmpty.hidden = Boolean(state.source && wave);
    ui.waveEmpty.textContent = state.source ? 'Loading the waveform…' : 'No file selected';
    if (!state.source || !d) return;

    const view = span();
    const x = (t) => ((t - state.viewStart) / view) * width;
    const axis = 16 * ratio;
    const top = 0;
    const bottom = height - axis;
    const middle = (top + bottom) / 2;
    const half = (bottom - top) / 2 - 2 * ratio;

    // The trim selection and the loop, behind the wave.
    const selStart = parseFloat(ui.trimStart.value);
    const selEnd = parseFloat(ui.trimEnd.value);
    if (isFile() && Number.isFinite(selStart) && Number.isFinite(selEnd) && selEnd > selStart) {
      ctx.fillStyle = colors.selection;
      ctx.fillRect(x(selStart), top, x(selEnd) - x(selStart), bottom - top);
      ctx.fillStyle = colors.selectionEdge;
      ctx.fillRect(Math.round(x(selStart)), top, ratio, bottom - top);
      ctx.fillRect(Math.round(x(selEnd)) - ratio, top, ratio, bottom - top);
    }
    if (state.loopIn !== null || state.loopOut !== null) {
      const from = state.loopIn ?? 0;
      const to = state.loopOut ?? d;
      if (loopActive()) {
        ctx.fillStyle = colors.loop;
        ctx.fillRect(x(from), top, x(to) - x(from), bottom - top);
      }
      ctx.fillStyle = colors.loopEdge;
      for (const edge of [state.loopIn, state.loopOut]) {
        if (edge === null) continue;
        ctx.fillRect(Math.round(x(edge)) - ratio, top, 2 * ratio, bottom - top);
      }
    }

    // The centre line, then a bar per pixel: that pixel's min and max.
    ctx.fillStyle = colors.axis;
    ctx.fillRect(0, Math.round(middle), width, Math.max(1, Math.round(ratio / 2)));
    const now = fileTime();
    if (wave) {
      const perSecond = wave.rate / wave.spp;
      const mirror = state.source.kind === 'result' && state.source.mirror;
      for (let px = 0; px < width; px++) {
        let t0 = state.viewStart + (px / width) * view;
        let t1 = state.viewStart + ((px + 1) / width) * view;
        const played = backwards() ? t0 >= now : t1 <= now;
        if (mirror) [t0, t1] = [d - t1, d - t0];
        const i0 = Math.floor(t0 * perSecond);
        const i1 = Math.max(i0 + 1, Math.ceil(t1 * perSecond));
        if (i0 >= wave.length || i1 <= 0) continue;
        let low = Infinity;
        let high = -Infinity;
        for (let i = Math.max(0, i0); i < Math.min(i1, wave.length); i++) {
          if (wave.mins[i] < low) low = wave.mins[i];
          if (wave.maxs[i] > high) high = wave.maxs[i];
        }
        const y0 = middle - high * half;
        const y1 = middle - low * half;
        ctx.fillStyle = played ? colors.played : colors.wave;
        ctx.fillRect(px, y0, 1, Math.max(ratio, y1 - y0));
      }
    }

    // The time axis.
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

    // The playhead.
    const head = Math.round(x(now));
    ctx.fillStyle = colors.playhead;
    ctx.fillRect(head - ratio, top, 2 * ratio, bottom - top);
    ctx.beginPath();
    ctx.moveTo(head - 5 * ratio, top);
    ctx.lineTo(head + 5 * ratio, top);
    ctx.lineTo(head, top + 6 * ratio);
    ctx.fill();
  }

  function setZoom(zoom) {
    if (!state.source) return;
    zoom = clamp(zoom, 1, MAX_ZOOM);
    if (zoom === state.zoom) return;
    // Keep the playhead where it is on the canvas when it is in view, else centre it.
    const d = duration();
    const t = fileTime();
    const oldSpan = span();
    const inView = t >= state.viewStart && t <= state.viewStart + oldSpan;
    const fraction = inView && oldSpan ? (t - state.viewStart) / oldSpan : 0.5;
    state.zoom = zoom;
    state.viewStart = clamp(t - fraction * span(), 0, Math.max(0, d - span()));
    updateZoom();
    loadWaveform();
    draw();
  }

  function updateZoom() {
    ui.zoomLevel.textContent = `${state.zoom}×`;
    ui.zoomIn.disabled = !state.source || state.zoom >= MAX_ZOOM;
    ui.zoomOut.disabled = !state.source || state.zoom <= 1;
  }

  // ---- the controls' state ---------------------------------------------------------------

  function updateControls() {
    const has = Boolean(state.source);
    const file = isFile();
    ui.playPause.disabled = !has && !state.files.length;
    ui.direction.disabled = !file;
    ui.direction.textContent = state.direction === BACKWARDS ? 'Backwards' : 'Forwards';
    ui.direction.setAttribute('aria-pressed', String(state.direction === BACKWARDS));
    ui.direction.title = file ? 'Play forwards or backwards (R)' : 'A result plays forwards only';
    ui.scrub.disabled = !has;
    ui.loopIn.disabled = !has;
    ui.loopOut.disabled = !has;
    for (const input of [ui.trimStart, ui.trimEnd]) input.disabled = !file;
    ui.trimHint.textContent = file ? 'Drag across the waveform to select a region.' : 'Trim works on the folder\'s files.';
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

  function updateTrimButton() {
    const start = parseFloat(ui.trimStart.value);
    const end = parseFloat(ui.trimEnd.value);
    const valid = isFile() && Number.isFinite(start) && Number.isFinite(end) && start >= 0 && end > start
      && start < duration() && end <= duration() + 0.0005;
    ui.trim.disabled = !valid || Boolean(state.trimJob);
  }

  // Time, slider and waveform, as the element is now.
  function refresh() {
    const d = duration();
    const t = fileTime();
    ui.time.textContent = `${formatTime(t)} / ${formatTime(d)}`;
    if (String(ui.scrub.max) !== String(d)) ui.scrub.max = String(d || 0);
    if (!state.scrubbing) ui.scrub.value = String(t);
    ui.scrub.setAttribute('aria-valuetext', `${formatTime(t)} of ${formatTime(d)}`);
    if (!audio.paused) followPlayhead();
    draw();
  }

  function tick() {
    state.frame = 0;
    enforceLoop();
    refresh();
    if (!audio.paused) state.frame = requestAnimationFrame(tick);
  }

  function startTicking() {
    if (!state.frame) state.frame = requestAnimationFrame(tick);
  }

  // ---- trim ---------------------------------------------------------------------------------

  async function trimRegion(event) {
    event.preventDefault();
    if (!isFile() || state.trimJob) return;
    const file = state.source.file;
    const start = parseFloat(ui.trimStart.value);
    const end = parseFloat(ui.trimEnd.value);
    if (!(Number.isFinite(start) && Number.isFinite(end) && end > start && start >= 0)) {
      setStatus('Trim: give a start before the end.', true);
      return;
    }
    if (end > duration() + 0.0005) {
      setStatus(`Trim: the end is after the file's end (${formatTime(duration(), 3)}).`, true);
      return;
    }
    const { stem, ext } = nameParts(file);
    const output = `${stem}-trim-${Date.now()}.${ext}`;
    // An end shown rounded to the millisecond at the file's end means the end itself: sent as
    // none, so that a rounding up past the last frame cannot fail the cut.
    const range = end >= duration() - 0.0005 ? { start } : { start, end };
    state.trimJob = { output };
    updateTrimButton();
    ui.trimResult.hidden = true;
    ui.trimProgress.hidden = false;
    ui.trimProgress.value = 0;
    ui.trimProgress.setAttribute('aria-label', `Trimming ${file.name}`);
    let started;
    try {
      started = await api('/api/jobs', {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ file: file.name, operation: 'trim', output, ...range }),
      });
    } catch (error) {
      state.trimJob = null;
      ui.trimProgress.hidden = true;
      updateTrimButton();
      setStatus(`Trim failed: ${error.message}`, true);
      return;
    }
    followJob(started.id, {
      progress: (status) => { ui.trimProgress.value = status.fraction; },
      done: (status) => {
        state.trimJob = null;
        ui.trimProgress.hidden = true;
        const name = status.output || output;
        ui.trimResult.href = `/api/jobs/${enc(status.id)}/result`;
        ui.trimResult.setAttribute('download', name);
        ui.trimResult.title = name;
        ui.trimResult.setAttribute('aria-label', `Download trim: ${name}`);
        ui.trimResult.dataset.job = status.id;
        ui.trimResult.hidden = false;
        updateTrimButton();
        setStatus(`Trimmed ${formatTime(start, 3)}–${formatTime(end, 3)} of ${file.name} into ${name}.`);
      },
      failed: (status) => {
        state.trimJob = null;
        ui.trimProgress.hidden = true;
        updateTrimButton();
        setStatus(`Trim failed: ${status.error || 'unknown error'}`, true);
      },
    });
  }

  function setSelection(a, b) {
    const d = duration();
    const start = clamp(Math.min(a, b), 0, d);
    const end = clamp(Math.max(a, b), 0, d);
    // Milliseconds, rounded inwards (the region never grows past what was selected); the file's
    // end stays its end (sent as no end at all).
    ui.trimStart.value = (Math.ceil(start * 1000 - 1e-6) / 1000).toFixed(3);
    ui.trimEnd.value = end >= d - 1e-6 ? d.toFixed(3) : (Math.floor(end * 1000 + 1e-6) / 1000).toFixed(3);
    updateTrimButton();
    draw();
  }

  // ---- events -------------------------------------------------------------------------------

  audio.addEventListener('loadedmetadata', () => {
    if (state.pendingSeek !== null) {
      const at = state.pendingSeek;
      state.pendingSeek = null;
      if (Math.abs(audio.currentTime - at) > 0.01) audio.currentTime = at;
    }
    updateControls();
    refresh();
  });
  audio.addEventListener('play', () => { updatePlayButton(); startTicking(); });
  audio.addEventListener('pause', () => { updatePlayButton(); refresh(); });
  audio.addEventListener('seeked', refresh);
  audio.addEventListener('timeupdate', () => {
    enforceLoop();
    if (audio.paused) refresh();
  });
  audio.addEventListener('durationchange', refresh);
  audio.addEventListener('ended', () => {
    if (loopActive()) {
      seekFile(backwards() ? state.loopOut : state.loopIn);
      startPlaying();
    }
    updatePlayButton();
    refresh();
  });
  audio.addEventListener('error', () => {
    if (!audio.getAttribute('src')) return;
    const error = audio.error;
    setStatus(`Could not play ${state.source ? state.source.file.name : 'that'}${error && error.message ? `: ${error.message}` : ''}.`, true);
    updatePlayButton();
  });

  ui.playPause.addEventListener('click', togglePlay);
  ui.direction.addEventListener('click', toggleDirection);
  ui.zoomIn.addEventListener('click', () => setZoom(state.zoom * 2));
  ui.zoomOut.addEventListener('click', () => setZoom(state.zoom / 2));
  ui.loopIn.addEventListener('click', () => setLoopPoint('in'));
  ui.loopOut.addEventListener('click', () => setLoopPoint('out'));
  ui.loopClear.addEventListener('click', clearLoop);
  ui.refresh.addEventListener('click', loadFiles);
  ui.trimForm.addEventListener('submit', trimRegion);
  for (const input of [ui.trimStart, ui.trimEnd]) {
    input.addEventListener('input', () => { updateTrimButton(); draw(); });
    input.addEventListener('change', () => { updateTrimButton(); draw(); });
  }

  ui.scrub.addEventListener('pointerdown', () => { state.scrubbing = true; });
  ui.scrub.addEventListener('input', () => { state.scrubbing = true; seekFile(parseFloat(ui.scrub.value)); });
  ui.scrub.addEventListener('change', () => { seekFile(parseFloat(ui.scrub.value)); state.scrubbing = false; });
  ui.scrub.addEventListener('pointerup', () => { state.scrubbing = false; });
  ui.scrub.addEventListener('blur', () => { state.scrubbing = false; });

  // On the waveform: a click seeks, a drag selects a region to trim.
  canvas.addEventListener('pointerdown', (event) => {
    if (!state.source || event.button !== 0) return;
    canvas.setPointerCapture(event.pointerId);
    state.drag = { x: event.clientX, t: timeAt(event.clientX), moved: false };
    event.preventDefault();
  });
  canvas.addEventListener('pointermove', (event) => {
    if (!state.drag) return;
    if (Math.abs(event.clientX - state.drag.x) > 4) state.drag.moved = true;
    if (state.drag.moved && isFile()) setSelection(state.drag.t, timeAt(event.clientX));
  });
  const endDrag = (event) => {
    const drag = state.drag;
    state.drag = null;
    if (!drag) return;
    if (drag.moved && isFile()) setSelection(drag.t, timeAt(event.clientX));
    else if (!drag.moved) seekFile(drag.t);
  };
  canvas.addEventListener('pointerup', endDrag);
  canvas.addEventListener('pointercancel', () => { state.drag = null; });
  canvas.addEventListener('wheel', (event) => {
    if (!state.source || state.zoom <= 1) return;
    const delta = Math.abs(event.deltaX) > Math.abs(event.deltaY) ? event.deltaX : event.deltaY;
    event.preventDefault();
    state.viewStart = clamp(state.viewStart + (delta / canvas.clientWidth) * span(), 0, Math.max(0, duration() - span()));
    draw();
  }, { passive: false });

  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    const target = event.target;
    const tag = target && target.tagName;
    const typing = (tag === 'INPUT' && target.type !== 'range') || tag === 'TEXTAREA' || tag === 'SELECT' || (target && target.isContentEditable);
    if (typing) return;
    // Space presses a focused button or link, as everywhere (the slider has no use for it).
    const control = tag === 'BUTTON' || tag === 'A' || tag === 'SUMMARY';
    switch (event.key) {
      case ' ':
      case 'Spacebar':
        if (control) return;
        event.preventDefault();
        togglePlay();
        break;
      case 'r':
      case 'R':
        event.preventDefault();
        toggleDirection();
        break;
      case 'ArrowLeft':
      case 'ArrowRight':
        // On the slider too: its own step (10 ms) is too fine for a key.
        if (!state.source) return;
        event.preventDefault();
        seekBy((event.key === 'ArrowLeft' ? -1 : 1) * (event.shiftKey ? 1 : 5));
        break;
      case 'i':
      case 'I':
        setLoopPoint('in');
        break;
      case 'o':
      case 'O':
        setLoopPoint('out');
        break;
      case '+':
      case '=':
        setZoom(state.zoom * 2);
        break;
      case '-':
        setZoom(state.zoom / 2);
        break;
      default:
        break;
    }
  });

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
  } else {
    window.addEventListener('resize', () => { draw(); loadWaveform(); });
  }
  if (window.matchMedia) {
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { readColors(); draw(); });
  }

  // A read-only view of the player, for tests and the curious.
  window.reverseAudio = Object.freeze({
    state() {
      return {
        src: audio.currentSrc || audio.src,
        direction: state.direction,
        fileTime: fileTime(),
        duration: duration(),
        playing: !audio.paused,
        source: state.source ? { kind: state.source.kind, name: state.source.file.name, job: state.source.job ? state.source.job.id : null } : null,
        zoom: state.zoom,
        loop: { in: state.loopIn, out: state.loopOut },
        waveform: state.wave ? { samplesPerPixel: state.wave.spp, length: state.wave.length } : null,
      };
    },
  });

  updateControls();
  refresh();
  loadFiles();
})();
