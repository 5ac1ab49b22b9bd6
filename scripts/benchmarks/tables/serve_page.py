"""The serve table's page figures (issue 46): `reverse-audio serve`'s page in headless Chromium, driven through
Selenium (the pinned venv scripts/test-browser makes, .build-selenium/venv) by scripts/benchmarks/page_driver.py,
on --serve-minutes (60) MP3 and FLAC inputs that the server has never opened (a fresh server process for every
measurement: the server keeps lengths, seek indexes and waveforms in memory only), and on a folder of 1,000
two-second MP3s made by ffmpeg (the batch table's library). Times are taken inside the page (performance.now()),
so WebDriver's round trips do not count. No peer serves such a page: each figure stands beside its goal."""

import json
import os
import re
import shutil
import statistics
import subprocess
from pathlib import Path

from ..cells import pass_or_miss
from ..inputs import link_or_copy, make_inputs, minutes_label, warm_cache
from ..shell import ROOT, log
from .batch import BATCH_FILES, BATCH_SECONDS, make_library

PAGE_FORMATS = ["mp3", "flac"]
HEADING = "### The page: first sound, direction, waveform, zoom and a long list in Chromium"
VENV = ROOT / ".build-selenium" / "venv"
DRIVER = ROOT / "scripts" / "benchmarks" / "page_driver.py"
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
DRIVER_SECONDS = 300  # a measurement that takes longer is a failure

# (key, what, goal in ms): the figures, in the table's order; key names the samples in a run.
FIGURES = [
    ("forwards", "first sound forwards", 300),
    ("backwards", "first sound backwards", 600),
    ("to_backwards", "direction switch to backwards", 150),
    ("to_forwards", "direction switch to forwards", 150),
    ("waveform", "first waveform on screen", 500),
    ("whole", "whole waveform on screen (the pass over)", None),
    ("zoom", "slowest zoom level sharp after the pass", 200),
]
LIST_FIGURE = ("rows", f"{BATCH_FILES:,}-file list's rows on screen", 1000)


# ---------------------------------------------------------------- inputs

def make_page_layout(work, minutes):
    """A folder per format holding only the `minutes` input (a hard link), and the 1,000-file library."""
    inputs = make_inputs(work, [minutes], PAGE_FORMATS)
    layout = {"minutes": minutes, "inputs": [], "library": make_library(work)}
    for fmt in PAGE_FORMATS:
        source = inputs[(minutes, fmt)]
        folder = work / "serve" / f"page-{fmt}"
        target = folder / source.name
        if not target.exists() or target.stat().st_ino != source.stat().st_ino:
            link_or_copy(source, target)
        layout["inputs"].append({"format": fmt, "folder": folder, "name": source.name, "source": source})
    return layout


# ---------------------------------------------------------------- the browser

def pinned_versions():
    """Selenium's and websockets' versions as scripts/test-browser pins them (one place says them)."""
    text = (ROOT / "scripts" / "test-browser").read_text()
    found = dict(re.findall(r"^(selenium|websockets)_version=(\S+)$", text, re.M))
    return found.get("selenium"), found.get("websockets")


def browser_python():
    """The venv's python with the pinned Selenium (made as scripts/test-browser makes it when missing), or
    (None, why not)."""
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    if missing:
        return None, (f"no {' or '.join(missing)} (Debian's chromium and chromium-driver; scripts/test-browser "
                      "installs them)")
    selenium, websockets = pinned_versions()
    python = VENV / "bin" / "python"
    check = (f"import selenium, websockets, sys; sys.exit(selenium.__version__ != {selenium!r} "
             f"or websockets.__version__ != {websockets!r})")
    if python.exists() and subprocess.run([str(python), "-c", check], capture_output=True).returncode == 0:
        return python, None
    log(f"== making {VENV.relative_to(ROOT)} (selenium=={selenium}, websockets=={websockets}, as scripts/test-browser)")
    shutil.rmtree(VENV, ignore_errors=True)
    VENV.parent.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(["python3", "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        f"selenium=={selenium}", f"websockets=={websockets}"], check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        return None, f"the Selenium venv could not be made ({error})"
    return python, None


def drive(python, server, what, *arguments):
    """One run of page_driver.py against `server`: its JSON answer ({"ok": False, "error"} when it failed)."""
    argv = [str(python), str(DRIVER), "--url", f"http://127.0.0.1:{server.port}/", "--what", what, *map(str, arguments)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=DRIVER_SECONDS,
                              env={**os.environ, "SE_OFFLINE": "true"})
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"no answer within {DRIVER_SECONDS} s"}
    lines = done.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        tail = " | ".join(done.stderr.strip().splitlines()[-2:])
        return {"ok": False, "error": f"exit {done.returncode}, no answer ({tail or 'no message'})"}


def one_measurement(binary, folder, scratch, start_server, python, what, *arguments):
    """A fresh server on `folder` (nothing cached), one driver run against it, the server stopped: the driver's
    answer, with a "note" when the server did not stop cleanly or said something."""
    try:
        server = start_server(binary, folder, scratch)
    except (OSError, RuntimeError) as error:
        return {"ok": False, "error": f"the server did not start: {error}"}
    try:
        answer = drive(python, server, what, *arguments)
    finally:
        note = server.stop()
    if note:
        answer["note"] = note
    return answer


def samples_of(play, backwards):
    """The figures of one run of an input, in ms ({key: value or None}) from the driver's two answers."""
    values = {key: None for key, _, _ in FIGURES}
    if play.get("ok"):
        forwards = play.get("forwards") or {}
        values["forwards"] = forwards.get("advanced")
        values["waveform"] = forwards.get("waveform")
        values["whole"] = forwards.get("whole")
        for key in ("to_backwards", "to_forwards"):
            values[key] = (play.get(key) or {}).get("advanced")
        levels = (play.get("zoom") or {}).get("levels") or []
        if levels and all(level["ms"] is not None for level in levels):
            values["zoom"] = max(level["ms"] for level in levels)
    if backwards.get("ok"):
        values["backwards"] = (backwards.get("backwards") or {}).get("advanced")
    return values


def event_at(marks, kind):
    """When (ms after the click) the element first told `kind` ('loadedmetadata': the server's first answer is in)."""
    return next((at for event, at, _, _ in (marks or {}).get("events") or [] if event == kind), None)


def steps_of(play, backwards):
    """Where the time of the first sounds and of the switches went: {key: (metadata ms, moving ms)}."""
    steps = {}
    for key, answer, part in (("forwards", play, "forwards"), ("to_backwards", play, "to_backwards"),
                              ("backwards", backwards, "backwards")):
        marks = answer.get(part) if answer.get("ok") else None
        if marks:
            steps[key] = (event_at(marks, "loadedmetadata"), marks.get("advanced"))
    return steps


def problems_of(label, answer):
    problems = []
    if not answer.get("ok"):
        problems.append(f"{label}: {answer.get('error', 'failed')}")
    if answer.get("note"):
        problems.append(f"{label}, server: {answer['note']}")
    return problems


def measure_page(binary, layout, runs, work, start_server):
    """Every figure `runs` times, each on a fresh server: per input {"format", "runs": [{key: ms}], "zoom":
    [[{"zoom", "samplesPerPixel", "ms"}] per run]}, the list's times, and what went wrong."""
    result = {"minutes": layout["minutes"], "runs": runs, "inputs": [], "list": [], "problems": [], "skipped": None,
              "files": BATCH_FILES, "file_seconds": BATCH_SECONDS}
    python, why = browser_python()
    if python is None:
        log(f"  the page's figures are skipped: {why}")
        result["skipped"] = why
        return result
    scratch = work / "run" / "serve-page"
    log(f"== serve's page in headless Chromium: {runs} run(s) of each {minutes_label(layout['minutes'])} input and of "
        f"a {BATCH_FILES:,}-file list, a fresh server for every measurement")
    rows = {entry["format"]: {"format": entry["format"], "runs": [], "zoom": [], "steps": []} for entry in layout["inputs"]}
    for run in range(runs):
        for entry in layout["inputs"]:
            fmt = entry["format"]
            warm_cache(entry["source"])  # the page and the server are measured, not the disk
            play = one_measurement(binary, entry["folder"], scratch, start_server, python, "play", "--name", entry["name"])
            backwards = one_measurement(binary, entry["folder"], scratch, start_server, python, "backwards",
                                        "--name", entry["name"])
            values = samples_of(play, backwards)
            rows[fmt]["runs"].append(values)
            rows[fmt]["zoom"].append((play.get("zoom") or {}).get("levels") or [])
            rows[fmt]["steps"].append(steps_of(play, backwards))
            rows[fmt].setdefault("described", []).append(((play.get("listing") or {}).get("namesEnd"),
                                                          (play.get("listing") or {}).get("filesEnd")))
            result["problems"] += problems_of(f"{fmt} run {run + 1}, play", play)
            result["problems"] += problems_of(f"{fmt} run {run + 1}, backwards", backwards)
            log(f"  {fmt} run {run + 1}: " + ", ".join(f"{key} {ms(values[key])}" for key, _, _ in FIGURES))
        answer = one_measurement(binary, layout["library"], scratch, start_server, python, "list",
                                 "--rows", BATCH_FILES, "--timeout", 120)
        timing = (answer.get("list") or {}) if answer.get("ok") else {}
        result["list"].append(timing.get("rows"))
        result.setdefault("list_api", []).append((timing.get("apiStart"), timing.get("apiEnd"), timing.get("described")))
        result["problems"] += problems_of(f"list run {run + 1}", answer)
        log(f"  {BATCH_FILES:,}-file list run {run + 1}: rows on screen {ms(result['list'][-1])} ms")
    result["inputs"] = [rows[fmt] for fmt in PAGE_FORMATS if fmt in rows]
    shutil.rmtree(scratch, ignore_errors=True)
    return result


# ---------------------------------------------------------------- figures, table, goals

def ms(value):
    return "-" if value is None else f"{value:.1f}"


def median(values):
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


def page_lines(result):
    """The table's rows: (figure, input, goal, median, [runs]); none when the page was not measured."""
    if result["skipped"]:
        return []
    lines = []
    for key, what, goal in FIGURES:
        for row in result["inputs"]:
            values = [run[key] for run in row["runs"]]
            lines.append((what, f"{row['format']} {minutes_label(result['minutes'])}", goal, median(values), values))
    key, what, goal = LIST_FIGURE
    lines.append((what, f"{result['files']:,} MP3s of {result['file_seconds']} s", goal, median(result["list"]),
                  result["list"]))
    return lines


PAGE_HEADERS = ["page figure", "input", "goal ms", "median ms", "runs ms", "verdict"]


def page_cells(line):
    what, label, goal, value, values = line
    runs = " ".join(ms(value) for value in values) or "-"
    verdict = "-" if value is None or goal is None else pass_or_miss(value <= goal)
    return [what, label, "-" if goal is None else f"≤ {goal:g}", "failed" if value is None else ms(value), runs, verdict]


def page_legend(result):
    minutes = minutes_label(result["minutes"])
    return (f"`reverse-audio serve FOLDER --port 0`'s page in headless Chromium (1280×800, `--headless=new "
            "--autoplay-policy=no-user-gesture-required --mute-audio`), driven through Selenium by "
            f"`scripts/benchmarks/page_driver.py`, on the {minutes} MP3 and FLAC inputs (each alone in its folder) and "
            f"a folder of {result['files']:,} {result['file_seconds']}-second MP3s made by ffmpeg. Never opened "
            "before: every measurement gets a server process of its own, started just before it (the server keeps "
            "lengths, seek indexes and waveforms in memory only) and a new browser profile; the input is in the page "
            "cache. Every time is taken inside the page with `performance.now()`, from a click dispatched by a "
            "script in the page (so WebDriver's round trips do not count) to what the page shows: first sound = the "
            "first moment `#player`'s currentTime moves on while it plays the right stream (polled every 2 ms), "
            "forwards from the row's Play as soon as the row is listed with its length (the page lists the names "
            "at once and fills in what the server reads of each file, for a file never opened its length pass: "
            "timed apart below), backwards from Play and `#direction` "
            "clicked in the same task (from file time 0 the whole-file loop goes on from the file's end); direction "
            "switch = a `#direction` click once the pass is over and the file has played a second on, to the other "
            "stream moving on; first waveform = Play to `state().waveform` non-null (drawn in the same task; the page "
            "draws a long file's waveform in parts as the server reads them), whole waveform = to its `complete` "
            "(no goal: what the zoom waits for); zoom "
            "= after the whole-file pass, each `#zoom-in` click (2× … 128×) until `state().waveform` has the "
            "samples per pixel the page's own `samplesPerPixel` asks for at that zoom, whole, the slowest level of a run; "
            "list = the navigation's start to the first animation frame with every `tr[data-name]` row (names "
            "first; each row's length and format follow as the server reads the files). Medians of "
            f"{result['runs']} run(s). No peer serves such a page (nginx, the floor above, serves files only): "
            "each figure stands beside the issue's goal.")


def page_verdicts(result):
    if result["skipped"]:
        return [("MISS", f"the page's figures were not measured: {result['skipped']}")]
    verdicts = []
    for key, what, goal in FIGURES:
        if goal is None:
            continue
        medians = [(row["format"], median([run[key] for run in row["runs"]])) for row in result["inputs"]]
        ok = bool(medians) and all(value is not None and value <= goal for _, value in medians)
        shown = ", ".join(f"{fmt} {ms(value)}" for fmt, value in medians)
        verdicts.append((pass_or_miss(ok), f"{what} ≤ {goal:g} ms, {minutes_label(result['minutes'])} inputs the "
                                           f"server had not opened (median ms: {shown})"))
    key, what, goal = LIST_FIGURE
    value = median(result["list"])
    verdicts.append((pass_or_miss(value is not None and value <= goal), f"{what} ≤ {goal:g} ms (median ms: {ms(value)})"))
    return verdicts


def page_raw_lines(result):
    lines = []
    names = {"forwards": "forwards", "backwards": "backwards", "to_backwards": "switch to backwards"}
    for row in result["inputs"]:
        for index, steps in enumerate(row.get("steps", [])):
            shown = "; ".join(f"{names[key]} {ms(steps[key][0])} / {ms(steps[key][1])}" for key in names if key in steps)
            lines.append(f"- serve page, {row['format']} run {index + 1} ms from the click to the server's first answer "
                         f"(loadedmetadata) / to sound: {shown or 'failed'}")
    for row in result["inputs"]:
        if row.get("described"):
            lines.append(f"- serve page, {row['format']}: ms after the navigation's start to the names listed / to the "
                         "file described (its length pass), each run: "
                         + "; ".join(f"{ms(names)} / {ms(files)}" for names, files in row["described"]))
    if result.get("list_api"):
        lines.append(f"- serve page, {result['files']:,}-file list: GET /api/files?details=known asked / answered / "
                     "every row described, ms after the navigation's start: "
                     + "; ".join(f"{ms(entry[0])} / {ms(entry[1])} / {ms(entry[2] if len(entry) > 2 else None)}"
                                 for entry in result["list_api"]))
    for row in result["inputs"]:
        for index, levels in enumerate(row["zoom"]):
            shown = " ".join(f"{level['zoom']}×/{level['samplesPerPixel']} {ms(level['ms'])}" for level in levels)
            lines.append(f"- serve page, {row['format']} run {index + 1} zoom ms (zoom/samples per pixel): "
                         f"{shown or 'failed'}")
    return lines
