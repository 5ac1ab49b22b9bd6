"""The tables, one module each; TABLE_NAMES is the one list that registers them.

A table module declares:

    NAME         its --tables name
    HELP         its phrase in --tables' help, "name (what it measures)"
    DEFAULT      True: measured unless --tables says otherwise, and needed by a full --write
    REPLACEABLE  True: `--write` with only such tables replaces just their sections of BENCHMARKS.md
    measure(context) -> result        run it (context.py says what a context holds)
    show(context, result)             print its table and targets at the end of the run
    section(context, result) -> lines its part of BENCHMARKS.md; result is None when this run did not
                                      measure it (keep the section already there, or say how to measure it)
    HEADING      the `## ` heading its section starts with (REPLACEABLE tables)

and, when it needs them:

    add_arguments(parser), check_arguments(parser, args)  its own options (OPTIONS_AFTER_COMMON: after --work,
                                                          --write and --callgrind in --help)
    asked_for(args) -> bool           an option of its own that selects it too (--rf64, --video)
    prepare(context)                  make its inputs before the load average is read and anything is timed
    raw_lines(result) -> lines        its rows in the final "Raw timings" list of a full --write
    written_options(context, result)  its options in the "Written by `scripts/bench --write` (...)" line
"""

import importlib

# --help and error messages name the tables in this order; it is also the order in which a --write of
# REPLACEABLE tables alone writes their sections. A new table goes at the end.
TABLE_NAMES = ["reverse", "encode", "range", "rf64", "edit", "jobs", "video", "play", "threads", "batch", "waveform", "serve", "remote", "split", "fades"]
# The order in which tables are measured, printed and laid out in a full BENCHMARKS.md; the same tables. (The
# batch table came to stand before the long reversal and the editing table when the file was one script.)
RUN_ORDER = ["reverse", "encode", "range", "jobs", "rf64", "edit", "video", "play", "threads", "batch", "waveform", "serve",
             "remote", "split", "fades"]

TABLES = [importlib.import_module(f".{name}", __name__) for name in TABLE_NAMES]
BY_NAME = {table.NAME: table for table in TABLES}
IN_RUN_ORDER = [BY_NAME[name] for name in RUN_ORDER]
assert sorted(TABLE_NAMES) == sorted(RUN_ORDER) and all(table.NAME == name for table, name in zip(TABLES, TABLE_NAMES))


def default(table):
    return getattr(table, "DEFAULT", False)


def replaceable(table):
    return getattr(table, "REPLACEABLE", False)
