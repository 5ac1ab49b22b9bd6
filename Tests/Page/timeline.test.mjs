// node --test Tests/Page: the player's pure arithmetic, run by scripts/test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { streamTime, lapTime, wrapped, activeLoop, samplesPerPixel, zoomLevels, zoomedViewStart, followedViewStart } from '../../Sources/ReverseAudioServer/Page/timeline.mjs';

test('the mirrored position: t ↔ duration − t, its own inverse', () => {
  assert.equal(streamTime(1.5, 10, true), 8.5);
  assert.equal(streamTime(1.5, 10, false), 1.5);
  assert.equal(streamTime(streamTime(3.25, 10, true), 10, true), 3.25);
});

test('a looping stream: the time within its lap', () => {
  assert.equal(lapTime(3.5, 10), 3.5);
  assert.ok(Math.abs(lapTime(23.5, 10) - 3.5) < 1e-9);
  assert.equal(lapTime(10, 10), 0);
  assert.equal(lapTime(4, 0), 4);
});

test('loops wrap past their edges, in both directions', () => {
  assert.ok(Math.abs(wrapped(10.2, 0, 10, false) - 0.2) < 1e-9);
  assert.ok(Math.abs(wrapped(-0.3, 0, 10, true) - 9.7) < 1e-9);
  assert.equal(wrapped(5, 0, 10, false), null);
  assert.equal(wrapped(5, 0, 10, true), null);
  assert.ok(Math.abs(wrapped(4.5, 2, 4, false) - 2.5) < 1e-9);
  assert.ok(Math.abs(wrapped(1.5, 2, 4, true) - 3.5) < 1e-9);
  assert.equal(wrapped(3, 2, 2, false), null);
});

test('the loop in force: a region, else the whole file when on', () => {
  assert.deepEqual(activeLoop(1, 2, 10, true), { start: 1, end: 2 });
  assert.deepEqual(activeLoop(null, 2, 10, true), { start: 0, end: 10 });
  assert.equal(activeLoop(null, null, 10, false), null);
  assert.equal(activeLoop(1, 1.005, 10, false), null);
});

test('samples per pixel: powers of two, never under the server\'s floor', () => {
  assert.equal(samplesPerPixel(44100 * 60, 1000, 1), 2048);
  assert.equal(samplesPerPixel(44100 * 60, 1000, 128), 16);
  assert.equal(samplesPerPixel(1000, 1000, 1), 2);
  assert.equal(samplesPerPixel(44100 * 3600, 10000, 128, 152), 256);
  assert.equal(samplesPerPixel(44100 * 3600, 10000, 128), 64);
  const levels = zoomLevels(44100 * 60, 1000);
  assert.deepEqual(levels, [2048, 1024, 512, 256, 128, 64, 32, 16]);
});

test('zooming keeps the playhead in place; playing pages the view', () => {
  assert.equal(zoomedViewStart(5, 0, 10, 5, 10), 2.5);
  assert.equal(zoomedViewStart(9, 0, 4, 2, 10), 8);
  assert.equal(followedViewStart(5, 0, 2, 10, false), 4.8);
  assert.equal(followedViewStart(5, 0, 2, 10, true), 3.2);
  assert.equal(followedViewStart(1, 0, 2, 10, false), 0);
  assert.equal(followedViewStart(5, 0, 20, 10, false), 0);
});
