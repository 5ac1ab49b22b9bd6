#!/usr/bin/env python3
"""One measurement of `reverse-audio serve`'s page in headless Chromium, for the serve table's page figures
(tables/serve_page.py runs it with the Selenium venv scripts/test-browser makes, .build-selenium/venv, once per
measurement, against a server it has just started: nothing is cached in the server or the browser).

Every time is taken inside the page with performance.now(), from a click the script dispatches (or, for the list,
from the navigation's start) to what the page shows, so WebDriver's round trips do not count. Prints one JSON
object on stdout: {"ok": true, ...figures in ms...} or {"ok": false, "error": "..."}.

    page_driver.py --url URL --what play --name NAME        first sound forwards, the first waveform, the direction
                                                            switch both ways, every zoom level
    page_driver.py --url URL --what backwards --name NAME   first sound backwards (Play, then #direction in the
                                                            same task)
    page_driver.py --url URL --what list --rows N           the list's N rows on screen
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import traceback

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

WIDTH, HEIGHT = 1280, 800

# Installed before the page's own scripts on every navigation: a record of the audio element's events, and the
# first animation frame after the list holds the rows wanted (window.__rowsWanted), in ms since navigation start.
PRELUDE = """
window.__events = [];
window.__rowsAt = null;
window.__rowsWanted = %d;
const watchRows = () => {
  const check = () => {
    if (window.__rowsAt === null && document.querySelectorAll('tr[data-name]').length >= window.__rowsWanted) {
      requestAnimationFrame(() => { if (window.__rowsAt === null) window.__rowsAt = performance.now(); });
      return true;
    }
    return false;
  };
  if (check()) return;
  const observer = new MutationObserver(() => { if (check()) observer.disconnect(); });
  observer.observe(document.documentElement, {childList: true, subtree: true});
};
document.addEventListener('DOMContentLoaded', () => {
  watchRows();
  const a = document.getElementById('player');
  if (!a) return;
  for (const type of ['loadstart', 'loadedmetadata', 'canplay', 'play', 'playing', 'waiting', 'seeking', 'seeked',
                      'pause', 'ended', 'error']) {
    a.addEventListener(type, () => window.__events.push([type, performance.now(), a.currentTime,
                                                         (a.currentSrc || a.src).split('/').pop()]));
  }
});
"""

# Sound: from a click (run right after t0 is read) until the element plays the wanted source and its currentTime
# has moved on by playing: the first poll (every 2 ms) that sees currentTime grow, by less than half a second since
# the poll before, while it plays the wanted source and does not seek; also the first 'playing' event for that
# source, and (when asked) the first moment state().waveform is non-null (the page draws a long file's first part
# while the server reads the rest) and the first moment it is whole (`complete` not false: the pass is over). In
# window.__sound, ms since the click; `finished` once all are in or `timeout` seconds have passed.
SOUND = """
const [actName, name, wantReverse, wantWaveform, timeout] = arguments;
const a = document.getElementById('player');
const rightSource = () => (a.currentSrc || a.src).includes('direction=reverse') === wantReverse;
const marks = {playing: null, advanced: null, waveform: null, whole: null, finished: false};
window.__sound = marks;
let last = null;
let t0 = 0;
const onPlaying = () => {
  if (marks.playing === null && rightSource()) marks.playing = performance.now() - t0;
};
a.addEventListener('playing', onPlaying);
const acts = {
  play: () => {
    const row = [...document.querySelectorAll('tr[data-name]')].find((r) => r.dataset.name === name);
    [...row.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Play').click();
  },
  playBackwards: () => { acts.play(); document.getElementById('direction').click(); },
  direction: () => document.getElementById('direction').click(),
};
const eventsBefore = window.__events.length;
t0 = performance.now();
acts[actName]();
const poll = setInterval(() => {
  const now = performance.now() - t0;
  if (marks.advanced === null) {
    if (a.paused || a.seeking || !rightSource() || a.readyState < 2) {
      last = null;
    } else {
      const at = a.currentTime;
      if (last !== null && at > last && at - last < 0.5) marks.advanced = now;
      last = at;
    }
  }
  const wave = wantWaveform ? window.reverseAudio.state().waveform : null;
  if (wave && marks.waveform === null) marks.waveform = now;
  if (wave && marks.whole === null && wave.complete !== false) marks.whole = now;
  if ((marks.advanced !== null && (!wantWaveform || marks.whole !== null)) || now > timeout * 1000) {
    clearInterval(poll);
    a.removeEventListener('playing', onPlaying);
    marks.state = window.reverseAudio.state();
    marks.events = window.__events.slice(eventsBefore)
      .map(([type, at, time, src]) => [type, +(at - t0).toFixed(1), +time.toFixed(3), src]);
    marks.finished = true;
  }
}, 2);
"""

# Zoom: each #zoom-in click until state().waveform is whole at the level the page wants for that zoom (the page's
# own samplesPerPixel of timeline.mjs, for this canvas's width and the server's least for the file).
ZOOM = """
const [frames, timeout, done] = arguments;
import('/timeline.mjs').then(async ({samplesPerPixel}) => {
  const canvas = document.getElementById('waveform');
  const width = Math.max(1, Math.round(canvas.clientWidth * (window.devicePixelRatio || 1)));
  const floor = Math.ceil(frames / (1 << 20));
  const levels = [];
  const button = document.getElementById('zoom-in');
  while (!button.disabled) {
    const t0 = performance.now();
    button.click();
    const zoom = window.reverseAudio.state().zoom;
    const wanted = samplesPerPixel(frames, width, zoom, floor);
    const ms = await new Promise((resolve) => {
      const check = () => {
        const wave = window.reverseAudio.state().waveform;
        const now = performance.now() - t0;
        if (wave && wave.samplesPerPixel === wanted && wave.complete !== false) resolve(now);
        else if (now > timeout * 1000) resolve(null);
        else setTimeout(check, 1);
      };
      check();
    });
    levels.push({zoom, samplesPerPixel: wanted, ms});
    if (ms === null) break;
  }
  done({width, levels});
}).catch((error) => done({error: String(error)}));
"""


def chromium(rows_wanted):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--autoplay-policy=no-user-gesture-required", "--disable-gpu", f"--window-size={WIDTH},{HEIGHT}",
                     "--force-device-scale-factor=1", "--mute-audio", "--lang=en-US"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(600)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PRELUDE % rows_wanted})
    return driver


def wait_in_page(driver, condition, timeout):
    """Polls the JavaScript expression `condition` in the page (every 20 ms: the page's Content-Security-Policy
    forbids eval, so the driver asks) until it is true; whether it became so. Only waits, never a figure."""
    deadline = time.monotonic() + timeout
    while True:
        if driver.execute_script(f"return Boolean({condition})"):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


def played_on(driver, seconds, timeout=30):
    """Waits in the page until #player has played `seconds` on from where it is now."""
    return driver.execute_async_script("""
        const [seconds, timeout, done] = arguments;
        const a = document.getElementById('player');
        const start = a.currentTime;
        const began = performance.now();
        const check = () => {
          if ((!a.paused && a.currentTime > start + seconds) || performance.now() - began > timeout * 1000) done(a.currentTime);
          else setTimeout(check, 10);
        };
        check();""", seconds, timeout)


def row_present(name):
    # Listed with its length: the page lists names at once and fills in what the server reads of each file (the
    # length pass, timed apart as the list's pass), so Play is timed on a row as a person sees it complete.
    return (f"[...document.querySelectorAll('tr[data-name]')].some((r) => r.dataset.name === {json.dumps(name)}"
            " && !r.hasAttribute('data-pending')) && window.reverseAudio")


def sound(driver, act, name, reverse, waveform, timeout):
    driver.execute_script(SOUND, act, name, reverse, waveform, timeout)
    while not wait_in_page(driver, "window.__sound.finished", 30):
        pass
    marks = driver.execute_script("return window.__sound")
    del marks["finished"]
    return marks


# The list's two requests, ms after the navigation's start: the names at once (`?details=known`) and the files as the
# server read them (`/api/files`: for a file never opened, its length pass).
LIST_TIMING = """
const entries = performance.getEntriesByType('resource');
const find = (suffix) => entries.find((e) => e.name.endsWith(suffix));
const names = find('/api/files?details=known'), files = find('/api/files');
return {namesStart: names ? names.startTime : null, namesEnd: names ? names.responseEnd : null,
        filesStart: files ? files.startTime : null, filesEnd: files ? files.responseEnd : null};
"""


def measure_play(driver, args):
    driver.get(args.url)
    if not wait_in_page(driver, row_present(args.name), 60):
        raise RuntimeError(f"no row for {args.name} within 60 s")
    result = {"listing": driver.execute_script(LIST_TIMING)}
    first = sound(driver, "play", args.name, False, True, args.timeout)
    result["forwards"] = first
    if first["advanced"] is None or first["whole"] is None:
        return result
    # The switch, once the whole-file pass is over and the file has played a second on: to backwards, then back.
    played_on(driver, 1.0)
    result["to_backwards"] = sound(driver, "direction", args.name, True, False, 60)
    played_on(driver, 1.0)
    result["to_forwards"] = sound(driver, "direction", args.name, False, False, 60)
    # The file's frames as the list says them (the server has them since the page listed the folder).
    frames = driver.execute_async_script("""
        const [name, done] = arguments;
        fetch('/api/files').then((r) => r.json()).then((files) => done(files.find((f) => f.name === name).frames),
                                                         (error) => done(null));""", args.name)
    result["zoom"] = driver.execute_async_script(ZOOM, frames, 10)
    return result


def measure_backwards(driver, args):
    driver.get(args.url)
    if not wait_in_page(driver, row_present(args.name), 60):
        raise RuntimeError(f"no row for {args.name} within 60 s")
    listing = driver.execute_script(LIST_TIMING)
    return {"listing": listing, "backwards": sound(driver, "playBackwards", args.name, True, False, args.timeout)}


def measure_list(driver, args):
    driver.get(args.url)
    if not any(wait_in_page(driver, "window.__rowsAt !== null", 30) for _ in range(max(1, round(args.timeout / 30)))):
        count = driver.execute_script("return document.querySelectorAll('tr[data-name]').length")
        raise RuntimeError(f"{count} rows, not {args.rows}, after {args.timeout} s")
    timing = driver.execute_script("const n = performance.getEntriesByType('navigation')[0];"
                                   "const api = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/api/files?details=known'));"
                                   "return {rows: window.__rowsAt, count: document.querySelectorAll('tr[data-name]').length,"
                                   " domContentLoaded: n ? n.domContentLoadedEventEnd : null,"
                                   " apiStart: api ? api.startTime : null, apiEnd: api ? api.responseEnd : null}")
    # Then every row described (the server read each file): not a goal, what the names-first list hides.
    wait_in_page(driver, "document.querySelectorAll('tr[data-pending]').length === 0", args.timeout)
    timing["described"] = driver.execute_script(LIST_TIMING)["filesEnd"]
    return {"list": timing}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--what", choices=["play", "backwards", "list"], required=True)
    parser.add_argument("--name")
    parser.add_argument("--rows", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    os.environ.setdefault("SE_OFFLINE", "true")
    runtime = tempfile.mkdtemp(prefix="reverse-audio-page-runtime-")
    os.chmod(runtime, 0o700)
    os.environ["XDG_RUNTIME_DIR"] = runtime  # Chromium's PulseAudio client would link one from ~/.config/pulse
    driver = None
    try:
        driver = chromium(args.rows or 1 << 30)
        measure = {"play": measure_play, "backwards": measure_backwards, "list": measure_list}[args.what]
        print(json.dumps({"ok": True, **measure(driver, args)}))
    except Exception as error:  # one line of JSON whatever happened: the table says what failed
        traceback.print_exc(file=sys.stderr)
        print(json.dumps({"ok": False, "error": f"{type(error).__name__}: {' '.join(str(error).split())[:300]}"}))
    finally:
        if driver is not None:
            try:
                driver.quit()
            except Exception:
                pass
        shutil.rmtree(runtime, ignore_errors=True)


if __name__ == "__main__":
    main()
