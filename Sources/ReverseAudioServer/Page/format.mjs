// Pure text helpers of the page: times as people write them, rates, channels, names. No DOM:
// tested by node's own test runner (Tests/Page).

// `seconds` as m:ss.ff (h:mm:ss.ff past an hour), `decimals` places.
export function formatTime(seconds, decimals = 2) {
  if (!Number.isFinite(seconds) || seconds < 0) seconds = 0;
  const factor = 10 ** decimals;
  const total = Math.round(seconds * factor) / factor;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total - h * 3600 - m * 60;
  const text = s.toFixed(decimals).padStart(decimals ? decimals + 3 : 2, '0');
  return (h ? `${h}:${String(m).padStart(2, '0')}` : `${m}`) + ':' + text;
}

// A time as the command line takes it: `ss[.fff]`, `m:ss[.fff]` or `h:mm:ss[.fff]`; null for
// anything else (a minute or second field past 59 after a colon included).
export function parseTime(text) {
  const trimmed = String(text).trim();
  if (!/^\d+(:\d{1,2}){0,2}(\.\d+)?$/.test(trimmed)) return null;
  const [whole, fraction = ''] = trimmed.split('.');
  const fields = whole.split(':').map(Number);
  if (fields.slice(1).some((field) => field > 59)) return null;
  const seconds = fields.reduce((total, field) => total * 60 + field, 0);
  return seconds + (fraction ? Number(`0.${fraction}`) : 0);
}

export function formatRate(rate) {
  return rate % 1000 === 0 ? `${rate / 1000} kHz` : `${(rate / 1000).toFixed(1)} kHz`;
}

export function formatChannels(count) {
  return count === 1 ? 'mono' : count === 2 ? 'stereo' : `${count} ch`;
}

// An upload's name as its user gave it: the server's prefix (8 hex digits and '-') taken off.
export function displayName(name) {
  return /^[0-9a-f]{8}-./.test(name) ? name.slice(9) : name;
}

// "sub/My Song.flac" → {folder: "sub/", base: "My Song.flac", stem: "My Song", ext: "flac"}.
export function nameParts(name) {
  const slash = name.lastIndexOf('/');
  const base = name.slice(slash + 1);
  const dot = base.lastIndexOf('.');
  return {
    folder: slash >= 0 ? name.slice(0, slash + 1) : '',
    base,
    stem: dot > 0 ? base.slice(0, dot) : base,
    ext: dot > 0 ? base.slice(dot + 1).toLowerCase() : '',
  };
}

// True when `file` (a list row) matches what is typed in the filter: every word, anywhere in
// its name or format, case ignored.
export function matchesFilter(file, text) {
  const words = String(text).toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = `${file.name} ${file.format || ''}`.toLowerCase();
  return words.every((word) => haystack.includes(word));
}
