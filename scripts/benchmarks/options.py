"""The command line: the options every table shares, then each table's own (tables/__init__.py)."""

import argparse

from . import tables
from .inputs import FORMATS


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog="scripts/bench",
        description="Benchmark reverse-audio's reversal against ffmpeg and SoX (see the top of this file).")
    defaults = [table.NAME for table in tables.TABLES if tables.default(table)]
    parser.add_argument("--durations", default="1,10,60", help="input lengths in minutes (default 1,10,60)")
    parser.add_argument("--formats", default=",".join(FORMATS), help="input formats (default mp3,m4a,flac,wav)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per command and input (default 3)")
    parser.add_argument("--tables", default=",".join(defaults),
                        help="what to measure: " + ", ".join(table.HELP for table in tables.TABLES)
                             + f"; default {','.join(defaults)}")
    late = [table for table in tables.TABLES if getattr(table, "OPTIONS_AFTER_COMMON", False)]
    for table in tables.TABLES:
        if hasattr(table, "add_arguments") and table not in late:
            table.add_arguments(parser)
    parser.add_argument("--work", help="folder for cached inputs and outputs (default bench-work/ in the repository)")
    parser.add_argument("--write", action="store_true", help="also write BENCHMARKS.md at the repository root")
    parser.add_argument("--callgrind", metavar="FILE", help="only profile one reversal of FILE under callgrind")
    for table in late:
        table.add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        args.duration_list = [float(item) for item in args.durations.split(",") if item.strip()]
        args.duration_list = [int(m) if m == int(m) else m for m in args.duration_list]
    except ValueError:
        parser.error(f"--durations: not a list of numbers: {args.durations}")
    if not args.duration_list or any(m <= 0 for m in args.duration_list):
        parser.error("--durations: need positive numbers of minutes")
    args.format_list = [item.strip() for item in args.formats.split(",") if item.strip()]
    unknown = [fmt for fmt in args.format_list if fmt not in FORMATS]
    if unknown or not args.format_list:
        parser.error(f"--formats: choose from {','.join(FORMATS)}")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    args.table_set = {item.strip() for item in args.tables.split(",") if item.strip()}
    args.table_set |= {table.NAME for table in tables.TABLES if hasattr(table, "asked_for") and table.asked_for(args)}
    if not args.table_set or args.table_set - set(tables.TABLE_NAMES):
        parser.error(f"--tables: choose from {','.join(tables.TABLE_NAMES)}")
    for table in tables.TABLES:
        if hasattr(table, "check_arguments"):
            table.check_arguments(parser, args)
    replaceable = {table.NAME for table in tables.TABLES if tables.replaceable(table)}
    if args.write and args.table_set <= replaceable:
        pass  # --tables edit,jobs,video... --write replaces only those sections of BENCHMARKS.md
    elif args.write and not set(defaults) <= args.table_set:
        parser.error(f"--write needs the tables {','.join(defaults)} (the default), so that BENCHMARKS.md is all "
                     "from one run")
    return args
