// The camera: a live preview while MediaRecorder records (WebM or MP4, whichever this browser
// makes), then the clip goes the way of an upload (a boomerang or reversed).
import { $, say } from './dom.mjs';
import { bringFile } from './uploads.mjs';

const ui = {
  preview: $('camera-preview'), record: $('record'), stop: $('stop'), mode: $('camera-mode'),
  lossless: $('camera-lossless'), time: $('camera-time'), panel: $('camera-panel'),
};
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
  say(ui.panel, '');
  if (!navigator.mediaDevices || !window.MediaRecorder) {
    say(ui.panel, 'This browser cannot record from a camera here (it needs a secure page and MediaRecorder).');
    return;
  }
  ui.record.disabled = true;
  try {
    camera.stream = await navigator.mediaDevices.getUserMedia({ video: true, audio: true });
  } catch (error) {
    ui.record.disabled = false;
    say(ui.panel, `No camera: ${error.message}`);
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
    ui.time.textContent = 'Camera off';
    ui.record.disabled = false;
    bringFile(blob, `camera-${stamp}.${mime.includes('mp4') ? 'mp4' : 'webm'}`, ui.mode.value, ui.lossless.checked ? 0 : undefined);
  });
  camera.recorder.start(250);
  camera.started = performance.now();
  ui.stop.disabled = false;
  ui.time.textContent = 'Recording 0.0 s';
  camera.timer = setInterval(() => {
    ui.time.textContent = `Recording ${((performance.now() - camera.started) / 1000).toFixed(1)} s`;
  }, 100);
}

function stopRecording() {
  ui.stop.disabled = true;
  if (camera.recorder && camera.recorder.state !== 'inactive') camera.recorder.stop();
}

ui.record.addEventListener('click', startRecording);
ui.stop.addEventListener('click', stopRecording);
