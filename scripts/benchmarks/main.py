"""The run: parse the options, find the binary, make the inputs, measure every table asked for in run
order, print them, and (--write) write BENCHMARKS.md or just the sections of the tables measured."""

import os
import subprocess
import sys
import time
from pathlib import Path

from . import tables
from .binary import tool_binary
from .callgrind import callgrind
from .context import Context
from .document import write_document
from .machine import load_average
from .markdown import write_sections
from .options import parse_args
from .shell import ROOT, die, ensure_dependencies, log


def run_benchmarks():
    args = parse_args()
    # Resolve paths given relative to where we were started before moving to the repository root.
    work = Path(args.work).resolve() if args.work else ROOT / "bench-work"
    callgrind_file = Path(args.callgrind).resolve() if args.callgrind else None
    os.chdir(ROOT)
    started = time.monotonic()
    ensure_dependencies("bench")
    binary = tool_binary()
    work.mkdir(parents=True, exist_ok=True)
    if callgrind_file:
        callgrind(binary, callgrind_file, work)
        return

    context = Context(args, binary, work)
    chosen = [table for table in tables.IN_RUN_ORDER if table.NAME in args.table_set]
    for table in chosen:  # inputs first, so that making them is neither timed nor in the load average
        if hasattr(table, "prepare"):
            table.prepare(context)
    load_before = load_average()
    results = {table.NAME: table.measure(context) for table in chosen}
    context.elapsed = time.monotonic() - started

    for table in chosen:
        table.show(context, results[table.NAME])
    context.loads = (load_before, load_average())
    log(f"\nBinary: {binary}; work folder: {work}; total {context.elapsed:.0f} s; "
        f"load average {context.loads[0]} before the runs, {context.loads[1]} after")
    if args.write and all(tables.replaceable(table) for table in chosen):
        write_sections([(table.HEADING, table.section(context, results.get(table.NAME)))
                        for table in tables.TABLES if table.NAME in args.table_set])
    elif args.write:
        write_document(context, results)


def main():
    try:
        run_benchmarks()
    except subprocess.CalledProcessError as error:
        die(f"command failed ({error.returncode}): {' '.join(map(str, error.cmd))}")
    except KeyboardInterrupt:
        sys.exit(130)
