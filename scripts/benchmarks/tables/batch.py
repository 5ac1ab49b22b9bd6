"""Whole libraries (issue 21): 1,000 short files through 1, 2 and 4 shares started side by side (as GNU parallel
or a job array starts them), and the cost of a rerun that finds every output complete and current."""

import os
import shutil
import statistics
import subprocess
import time

from ..cells import pass_or_miss
from ..console import show as show_table, text_table
from ..inputs import ENCODE
from ..markdown import kept_section, markdown_table, measured_line, verdict_lines
from ..shell import log, run

NAME = "batch"
HELP = "batch (1,000 short files through 1, 2 and 4 shares; a rerun that skips them all)"
REPLACEABLE = True  # `--write` with only such tables replaces just their sections of BENCHMARKS.md
HEADING = "## Whole libraries: shares and reruns"

BATCH_FILES = 1000
BATCH_SECONDS = 2
BATCH_SIGNALS = 20  # distinct signals, each copied into BATCH_FILES / BATCH_SIGNALS places
SHARES = (1, 2, 4)
RERUN_TARGET_MS = 1.0


def make_library(work):
    """BATCH_FILES MP3s of BATCH_SECONDS, ten folders of a hundred, cached in the work folder."""
    folder = work / "inputs" / f"library-{BATCH_FILES}x{BATCH_SECONDS}s"
    done = folder / ".complete"
    if done.exists():
        return folder
    log(f"== making {BATCH_FILES} {BATCH_SECONDS}-second MP3s in {folder}")
    shutil.rmtree(folder, ignore_errors=True)
    signals = folder / ".signals"
    signals.mkdir(parents=True)
    for index in range(BATCH_SIGNALS):
        graph = ["-f", "lavfi", "-i", f"sine=f={220 + 31 * index}:d={BATCH_SECONDS}:sample_rate=44100", "-ac", "2"]
        run(["ffmpeg", "-nostdin", "-v", "error", "-y", *graph, *ENCODE["mp3"], str(signals / f"{index}.mp3")])
    for index in range(BATCH_FILES):
        target = folder / f"artist {index // 100:02}" / f"track {index:04}.mp3"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(signals / f"{index % BATCH_SIGNALS}.mp3", target)
    done.touch()
    return folder


def run_shares(binary, library, out, shares):
    """`shares` workers of `reverse LIBRARY -o OUT --shard K/N --jobs 1 --threads 1` at once, each under GNU time:
    (wall seconds until the last ends, [peak RSS MiB per worker], failure or None)."""
    workers = []
    start = time.monotonic()
    for index in range(shares):
        time_file = out.parent / f"time-{shares}-{index}.txt"
        argv = ["/usr/bin/time", "-f", "%M", "-o", str(time_file), str(binary), "reverse", str(library), "-o", str(out),
                "--jobs", "1", "--threads", "1", "--progress", "none", "--shard", f"{index}/{shares}"]
        workers.append((subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.PIPE, text=True), time_file))
    failure, rss = None, []
    for process, time_file in workers:
        _, errors = process.communicate()
        if process.returncode != 0 and failure is None:
            failure = f"exit {process.returncode}: {(errors.strip().splitlines() or ['no message'])[-1]}"
        fields = time_file.read_text().split() if time_file.exists() else []
        if fields:
            rss.append(int(fields[-1]) / 1024)
    return time.monotonic() - start, rss, failure


def count_outputs(out):
    """How many outputs there are under `out` (the resume records left out), and whether any is there twice."""
    names = [path.relative_to(out) for path in out.rglob("*-REVERSED.wav") if ".reverse-audio-state" not in path.parts]
    return len(names), len(names) != len(set(names))


def measure_batch(binary, runs, work):
    library = make_library(work)
    run_dir = work / "run" / "batch"
    rows = []
    for shares in SHARES:
        walls, rerun_walls, rss, failure, outputs, doubled = [], [], [], None, 0, False
        for _ in range(runs):
            shutil.rmtree(run_dir, ignore_errors=True)
            out = run_dir / "out"
            out.mkdir(parents=True)
            os.sync()
            wall, worker_rss, failure = run_shares(binary, library, out, shares)
            if failure:
                break
            walls.append(wall)
            rss.extend(worker_rss)
            outputs, doubled = count_outputs(out)
            # The same command again: every output is complete and current, so nothing is opened or written.
            rerun, _, failure = run_shares(binary, library, out, shares)
            if failure:
                break
            rerun_walls.append(rerun)
        rows.append({"shares": shares, "walls": walls, "rerun_walls": rerun_walls, "rss": rss, "failure": failure,
                     "outputs": outputs, "doubled": doubled})
        log(f"  {shares} share(s): " + (failure or f"{statistics.median(walls):.2f} s, rerun "
                                         f"{statistics.median(rerun_walls):.3f} s, {outputs} outputs"))
    shutil.rmtree(run_dir, ignore_errors=True)
    return {"rows": rows, "cores": os.cpu_count()}


def files_per_second(row):
    return BATCH_FILES / statistics.median(row["walls"]) if row["walls"] else None


def rerun_ms(row):
    return 1000 * statistics.median(row["rerun_walls"]) / BATCH_FILES if row["rerun_walls"] else None


BATCH_HEADERS = ["shares", "s (all files)", "files/s", "peak RSS per worker", "rerun s", "rerun ms/file", "outputs"]
BATCH_LEGEND = (f"`reverse-audio reverse LIBRARY -o OUT --jobs 1 --threads 1 --shard K/N` for every K at once, on "
                f"{BATCH_FILES} MP3s of {BATCH_SECONDS} s (192 kb/s stereo, ten folders of a hundred); s: median wall "
                "seconds until the last share ends; peak RSS: the largest of the workers, MiB; rerun: the same "
                "commands again, when every output is complete and current (each worker still walks the whole "
                "library and starts once).")


def batch_cells(row):
    if row["failure"]:
        return [str(row["shares"]), "failed: " + row["failure"], "", "", "", "", ""]
    return [str(row["shares"]), f"{statistics.median(row['walls']):.2f}", f"{files_per_second(row):.0f}",
            f"{max(row['rss']):.1f}", f"{statistics.median(row['rerun_walls']):.3f}", f"{rerun_ms(row):.3f}",
            f"{row['outputs']}{' (some twice)' if row['doubled'] else ''}"]


def batch_targets(result):
    rows = result["rows"]
    once = all(not row["failure"] and row["outputs"] == BATCH_FILES and not row["doubled"] for row in rows)
    costs = [rerun_ms(row) for row in rows if not row["failure"] and rerun_ms(row) is not None]
    worst = max(costs) if costs else None
    speeds = {row["shares"]: files_per_second(row) for row in rows}
    faster = speeds.get(1) is not None and speeds.get(2) is not None and speeds[2] > speeds[1]
    return [(pass_or_miss(once), f"every share count writes each of the {BATCH_FILES} outputs exactly once"),
            (pass_or_miss(worst is not None and worst < RERUN_TARGET_MS),
             f"a rerun that skips everything costs under {RERUN_TARGET_MS:g} ms a file "
             f"({'failed' if worst is None else f'{worst:.3f} ms at worst'})"),
            (pass_or_miss(faster), f"2 shares are faster than 1 ({result['cores']} cores)")]


def measure(context):
    log(f"== {BATCH_FILES} files through {', '.join(map(str, SHARES))} shares, then a rerun of each: "
        f"{context.args.runs} runs")
    result = measure_batch(context.binary, context.args.runs, context.work)
    return {**result, "verdicts": batch_targets(result)}


def show(context, result):
    show_table(f"Whole libraries: shares and reruns ({context.args.runs} timed runs each).", BATCH_LEGEND,
               text_table(result["rows"], BATCH_HEADERS, batch_cells), result["verdicts"])


def section(context, result):
    if result is None:
        kept = kept_section(HEADING, "run with --tables batch to measure it")
        return kept or [HEADING, "", "Not measured yet (run `scripts/bench --tables batch --write`)."]
    raw = [f"- {row['shares']} share(s): " + " ".join(f"{wall:.3f}" for wall in row["walls"])
           + "; reruns " + " ".join(f"{wall:.3f}" for wall in row["rerun_walls"]) for row in result["rows"]]
    return [HEADING, "", measured_line(context.loads), "", BATCH_LEGEND, "",
            markdown_table(result["rows"], BATCH_HEADERS, batch_cells), "", *verdict_lines(result["verdicts"]), "",
            "Raw timings (seconds, in run order):", "", *raw]
