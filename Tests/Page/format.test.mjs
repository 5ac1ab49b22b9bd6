// node --test Tests/Page: the page's pure helpers, run by scripts/test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTime, parseTime, displayName, nameParts, matchesFilter, formatRate, formatChannels } from '../../Sources/ReverseAudioServer/Page/format.mjs';

test('times format as m:ss.ff and h:mm:ss.ff', () => {
  assert.equal(formatTime(0), '0:00.00');
  assert.equal(formatTime(61.234), '1:01.23');
  assert.equal(formatTime(59.999), '1:00.00');
  assert.equal(formatTime(3725.5, 1), '1:02:05.5');
  assert.equal(formatTime(-3), '0:00.00');
  assert.equal(formatTime(NaN), '0:00.00');
});

test('times parse as the command line writes them', () => {
  assert.equal(parseTime('12'), 12);
  assert.equal(parseTime('1:02.5'), 62.5);
  assert.equal(parseTime('1:02:03.25'), 3723.25);
  assert.equal(parseTime(' 0.001 '), 0.001);
  for (const bad of ['', '1:60', '1:2:3:4', '-1', 'abc', '1.2.3', '1:']) assert.equal(parseTime(bad), null, bad);
  assert.equal(parseTime(formatTime(83.25)), 83.25);
});

test('names: the upload prefix goes, parts split at the last slash and dot', () => {
  assert.equal(displayName('3fac7121-Melody.mp3'), 'Melody.mp3');
  assert.equal(displayName('Melody.mp3'), 'Melody.mp3');
  assert.equal(displayName('3fac712-x.mp3'), '3fac712-x.mp3');
  assert.deepEqual(nameParts('sub/My Song.FLAC'), { folder: 'sub/', base: 'My Song.FLAC', stem: 'My Song', ext: 'flac' });
  assert.deepEqual(nameParts('.hidden'), { folder: '', base: '.hidden', stem: '.hidden', ext: '' });
});

test('the filter matches every word, case ignored', () => {
  const file = { name: 'live/Track-200.mp3', format: 'mp3' };
  assert.ok(matchesFilter(file, 'track 200'));
  assert.ok(matchesFilter(file, ''));
  assert.ok(matchesFilter(file, 'LIVE mp3'));
  assert.ok(!matchesFilter(file, 'track 201'));
});

test('rates and channels', () => {
  assert.equal(formatRate(44100), '44.1 kHz');
  assert.equal(formatRate(48000), '48 kHz');
  assert.equal(formatChannels(1), 'mono');
  assert.equal(formatChannels(6), '6 ch');
});
