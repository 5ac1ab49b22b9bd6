"""URL inputs: the last 10 seconds of a --remote-minutes (60) file reversed, read from a loopback HTTP server
that answers byte ranges (Tests/HTTPServer/fixture_server.py, which counts what it sends), against ffmpeg input
seeking on the same URL. The bytes fetched (target: under 5% of the file) and the time; our output compared
with the exact oracle, ffmpeg atrim + areverse on the local file."""

import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from ..audio import compare_pcm, probe
from ..cells import pass_or_miss
from ..console import show as show_table, text_table
from ..inputs import make_inputs, minutes_label
from ..markdown import kept_section, markdown_table, measured_line, verdict_lines
from ..shell import log

NAME = "remote"
HELP = "remote (the last 10 s of a 60-minute file reversed from an HTTP URL: bytes fetched and time, against ffmpeg -ss)"
REPLACEABLE = True
HEADING = "## URL inputs: the last 10 seconds of a remote file, reversed"

TAIL_SECONDS = 10
BYTES_PERCENT_LIMIT = 5.0
SERVER = Path(__file__).resolve().parents[3] / "Tests" / "HTTPServer" / "fixture_server.py"


class FixtureServer:
    """The test suite's loopback server on the inputs' folder; `fetched()` reads and resets its byte count."""

    def __init__(self, folder, scratch):
        port_file = scratch / "remote-port"
        if port_file.exists():
            port_file.unlink()
        self.process = subprocess.Popen([sys.executable, str(SERVER), str(folder), str(port_file)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("the fixture HTTP server did not start")
            time.sleep(0.05)
        self.port = int(port_file.read_text())

    def url(self, name):
        return f"http://127.0.0.1:{self.port}/range/{name}"

    def fetched(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats?reset=1", timeout=30) as answer:
            return json.loads(answer.read())

    def stop(self):
        self.process.kill()
        self.process.wait()


def timed(command, server, runs):
    """Median wall seconds of `runs` runs, and the bytes and requests of the last; None on failure."""
    walls, stats = [], None
    for _ in range(runs):
        server.fetched()
        start = time.monotonic()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        walls.append(time.monotonic() - start)
        stats = server.fetched()
        if done.returncode != 0:
            log(f"failed ({done.returncode}): {' '.join(command)}: {done.stderr.decode(errors='replace').strip()}")
            return None
    return {"wall": statistics.median(walls), "bytes": stats["bytes"], "requests": stats["requests"]}


def measure_remote(binary, source, fmt, server, runs, work):
    info = probe(source)
    rate = int(info.get("sample_rate", 44100) or 44100)
    described = subprocess.run([str(binary), "info", str(source), "--json"], check=True, capture_output=True, text=True)
    frames = int(json.loads(described.stdout)["frames"])
    start_frame = frames - TAIL_SECONDS * rate
    start = start_frame / rate
    out = work / "remote-run"
    out.mkdir(parents=True, exist_ok=True)
    ours_out, seek_out, oracle_out = out / "ours.wav", out / "seek.wav", out / "oracle.wav"
    url = server.url(source.name)
    ours = timed([str(binary), "convert", url, str(ours_out), "--reverse", "--start", f"{start:.6f}", "-y", "-q"],
                 server, runs)
    seek = timed(["ffmpeg", "-nostdin", "-v", "error", "-y", "-ss", f"{start:.6f}", "-i", url, "-af", "areverse",
                  str(seek_out)], server, runs)
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(source), "-af",
                    f"atrim=start_sample={start_frame}:end_sample={frames},areverse", str(oracle_out)], check=True)
    row = {"format": fmt, "label": f"{fmt} {minutes_label(round(frames / rate / 60))}", "size": os.path.getsize(source),
           "ours": ours, "seek": seek,
           "exact": compare_pcm(ours_out, oracle_out) if ours else None,
           "seek_exact": compare_pcm(seek_out, oracle_out) if seek else None}
    for path in (ours_out, seek_out, oracle_out):
        path.unlink(missing_ok=True)
    return row


def share(row, name):
    measured = row[name]
    return None if measured is None else 100 * measured["bytes"] / row["size"]


def describe_match(match, aac):
    if match is None:
        return "failed"
    if match["equal"]:
        return "yes"
    frames = "" if match["same_length"] else f"{match['samples'][0]} vs {match['samples'][1]} samples, "
    return f"{'' if aac else 'NO ('}{frames}max |Δ| {match['max_diff']}{'' if aac else ')'}"


HEADERS = ["input", "MB", "ours MB fetched", "ours % of file", "ours requests", "s ours", "ffmpeg -ss MB fetched",
           "ffmpeg -ss %", "ffmpeg -ss requests", "s ffmpeg -ss", "ours = atrim", "ffmpeg -ss = atrim"]
LEGEND = (f"ours = `reverse-audio convert URL out.wav --reverse --start S` (S = the length less {TAIL_SECONDS} s, to "
          "the frame), ffmpeg -ss = `ffmpeg -ss S -i URL -af areverse out.wav`; MB fetched: bytes the server sent "
          "(its send buffer is 64 KiB, so a connection dropped after a seek counts little more than was read); "
          "requests: HTTP requests made (each seek is one); s: median wall seconds on loopback; = atrim: the "
          "decoded samples equal `ffmpeg -i FILE -af atrim=start_sample=N:end_sample=E,areverse` on the local file "
          "(E: the length every command gives, which for MP4 is the edit list's end where FFmpeg 5.1 decodes the "
          "last packet whole; AAC: or its max |Δ|).")


def cells(row):
    def mb(name):
        return "-" if row[name] is None else f"{row[name]['bytes'] / 1e6:.2f}"

    def percent(name):
        value = share(row, name)
        return "-" if value is None else f"{value:.2f}%"

    def field(name, key, digits=None):
        if row[name] is None:
            return "-"
        return f"{row[name][key]:.{digits}f}" if digits is not None else str(row[name][key])

    aac = row["format"] == "m4a"
    return [row["label"], f"{row['size'] / 1e6:.1f}", mb("ours"), percent("ours"), field("ours", "requests"),
            field("ours", "wall", 3), mb("seek"), percent("seek"), field("seek", "requests"), field("seek", "wall", 3),
            describe_match(row["exact"], aac), describe_match(row["seek_exact"], aac)]


def targets(rows):
    results = []
    over = [f"{row['format']} {share(row, 'ours'):.1f}%" for row in rows
            if share(row, "ours") is None or share(row, "ours") >= BYTES_PERCENT_LIMIT]
    shown = ", ".join(f"{row['format']} " + ("failed" if share(row, "ours") is None else f"{share(row, 'ours'):.2f}%")
                      for row in rows)
    results.append((pass_or_miss(not over), f"the last {TAIL_SECONDS} s reversed fetch < {BYTES_PERCENT_LIMIT:g}% "
                    f"of the file: {shown}"))
    wrong = [row["format"] for row in rows if row["format"] != "m4a" and not (row["exact"] and row["exact"]["equal"])]
    results.append((pass_or_miss(not wrong), "ours equals atrim + areverse"
                    + (f"; NOT for: {', '.join(wrong)}" if wrong else " for every lossless and MP3 input")))
    return results


def add_arguments(parser):
    parser.add_argument("--remote-minutes", type=float, default=60,
                        help="length of the files read from a URL, in minutes (default 60)")


def check_arguments(parser, args):
    if args.remote_minutes * 60 < 2 * TAIL_SECONDS:
        parser.error("--remote-minutes: too short for the last 10 seconds")
    if args.remote_minutes == int(args.remote_minutes):
        args.remote_minutes = int(args.remote_minutes)


def prepare(context):
    context.inputs.update(make_inputs(context.work, [context.args.remote_minutes], context.args.format_list))


def measure(context):
    args = context.args
    sources = [context.inputs[(args.remote_minutes, fmt)] for fmt in args.format_list]
    rows = []
    server = FixtureServer(sources[0].parent, context.work)
    try:
        for fmt, source in zip(args.format_list, sources):
            if source.parent != sources[0].parent:
                raise RuntimeError("the inputs are not in one folder")
            log(f"== the last {TAIL_SECONDS} s of {source.name} reversed from a URL: {args.runs} runs each")
            rows.append(measure_remote(context.binary, source, fmt, server, args.runs, context.work))
    finally:
        server.stop()
    return {"rows": rows, "verdicts": targets(rows)}


def show(context, result):
    show_table(f"The last {TAIL_SECONDS} s of {minutes_label(context.args.remote_minutes)} files reversed from a URL.",
               LEGEND, text_table(result["rows"], HEADERS, cells), result["verdicts"])


def written_options(context, result):
    if result is None:
        return None
    return f"--remote-minutes {context.args.remote_minutes:g}"


def section(context, result):
    if result is None:
        kept = kept_section(HEADING, "run with --tables remote to measure it")
        return kept or [HEADING, "", "Not measured yet (run `scripts/bench --tables remote --write`)."]
    return [HEADING, "", measured_line(context.loads), "", LEGEND, "",
            markdown_table(result["rows"], HEADERS, cells), "", *verdict_lines(result["verdicts"])]
