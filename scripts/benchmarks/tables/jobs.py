"""A batch with --jobs: `reverse FOLDER --jobs 1` against `--jobs 2` on 100 five-second MP3s: wall time,
memory, and whether both write the same files byte for byte."""

import hashlib
import os
import shutil

from ..cells import pass_or_miss, ratio, value
from ..console import show as show_table, text_table
from ..inputs import ENCODE
from ..markdown import kept_section, markdown_table, measured_line, raw_line, verdict_lines
from ..runner import Command, log_walls, run_round_robin
from ..shell import log, run

NAME = "jobs"
HELP = "jobs (a batch with --jobs 1 and 2)"
REPLACEABLE = True  # `--write` with only such tables replaces just their sections of BENCHMARKS.md
HEADING = "## A batch with --jobs"


JOBS_FILES = 100
JOBS_SECONDS = 5


def make_batch(work):
    """JOBS_FILES short MP3s (JOBS_SECONDS each, different signals) in one folder, cached."""
    folder = work / "inputs" / f"batch-{JOBS_FILES}x{JOBS_SECONDS}s"
    done = folder / ".complete"
    if not done.exists():
        log(f"== making {JOBS_FILES} {JOBS_SECONDS}-second MP3s in {folder}")
        folder.mkdir(parents=True, exist_ok=True)
        for index in range(JOBS_FILES):
            graph = ["-f", "lavfi", "-i", f"sine=f={220 + 7 * index}:d={JOBS_SECONDS}:sample_rate=44100", "-ac", "2"]
            run(["ffmpeg", "-nostdin", "-v", "error", "-y", *graph, *ENCODE["mp3"], str(folder / f"clip-{index:03}.mp3")])
        done.touch()
    return folder


def folder_digest(folder):
    """One hash over every file's name and bytes under `folder` (sorted), or None when it is empty."""
    digest, count = hashlib.sha256(), 0
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(folder)).encode())
            digest.update(path.read_bytes())
            count += 1
    return (digest.hexdigest(), count) if count else None


def measure_jobs(binary, runs, work):
    batch = make_batch(work)
    run_dir = work / "run"
    commands = {}
    for jobs in (1, 2):
        out, tmp = run_dir / f"jobs{jobs}" / "out", run_dir / f"jobs{jobs}" / "tmp"
        commands[f"jobs{jobs}"] = Command(f"jobs{jobs}", [str(binary), "reverse", str(batch), "-o", str(out), "--jobs",
                                                          str(jobs), "--progress", "none", "-y"], out, tmp, None, False)
    order = list(commands.values())
    run_round_robin(order, runs)
    digests = {name: folder_digest(command.out_dir) for name, command in commands.items() if command.failure is None}
    identical = len(digests) == 2 and digests["jobs1"] is not None and digests["jobs1"] == digests["jobs2"]
    files = digests.get("jobs1", (None, 0))[1] if digests.get("jobs1") else 0
    log_walls(order)
    shutil.rmtree(run_dir, ignore_errors=True)
    return {"commands": commands, "identical": identical, "files": files, "cores": os.cpu_count()}


JOBS_HEADERS = ["batch", "s --jobs 1", "s --jobs 2", "speed-up", "RSS --jobs 1", "RSS --jobs 2", "outputs identical"]
JOBS_LEGEND = (f"`reverse-audio reverse FOLDER -o OUT --jobs N` on {JOBS_FILES} MP3s of {JOBS_SECONDS} s (192 kb/s "
               "stereo); s: median wall seconds; RSS: peak resident memory, MiB (the whole process).")


def jobs_cells(row):
    c = row["commands"]
    return [f"{JOBS_FILES} × {JOBS_SECONDS} s MP3", value(c, "jobs1", "wall", 3), value(c, "jobs2", "wall", 3),
            ratio(c, "jobs1", "jobs2"), value(c, "jobs1", "peak_rss", 1), value(c, "jobs2", "peak_rss", 1),
            "yes" if row["identical"] else "NO"]


def jobs_targets(row):
    if row is None:
        return []
    c = row["commands"]
    one, two = c["jobs1"].wall, c["jobs2"].wall
    faster = one is not None and two is not None and two < one
    timing = "failed" if one is None or two is None else f"{one:.3f} s vs {two:.3f} s"
    return [(pass_or_miss(faster), f"--jobs 2 is faster than --jobs 1 ({timing}; {row['cores']} cores)"),
            (pass_or_miss(row["identical"]), f"--jobs 2 writes the same {row['files']} files, byte for byte, as --jobs 1")]


def measure(context):
    log(f"== a batch of {JOBS_FILES} files with --jobs 1 and --jobs 2: warm-up, then {context.args.runs} "
        "round-robin runs")
    row = measure_jobs(context.binary, context.args.runs, context.work)
    return {"row": row, "verdicts": jobs_targets(row)}


def show(context, result):
    show_table(f"A batch with --jobs ({context.args.runs} timed runs each).", JOBS_LEGEND,
               text_table([result["row"]], JOBS_HEADERS, jobs_cells), result["verdicts"])


def section(context, result):
    if result is None:
        kept = kept_section(HEADING, "run with --tables jobs to measure it")
        return kept or [HEADING, "", "Not measured yet (run `scripts/bench --tables jobs --write`)."]
    return [HEADING, "", measured_line(context.loads), "", JOBS_LEGEND, "",
            markdown_table([result["row"]], JOBS_HEADERS, jobs_cells), "", *verdict_lines(result["verdicts"]), "",
            "Raw timings (seconds, in run order):", "", raw_line("batch", result["row"]["commands"])]
