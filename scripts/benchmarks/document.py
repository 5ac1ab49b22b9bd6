"""BENCHMARKS.md as a whole (a full `--write`): the machine, then every table's section in run order
(a table this run did not measure keeps its earlier section), then the raw timings."""

from . import markdown, tables
from .machine import machine_description
from .shell import log


def document_lines(context, results):
    args = context.args
    options = " ".join([f"--durations {args.durations} --formats {args.formats} --runs {args.runs}"]
                       + [text for table in tables.IN_RUN_ORDER if hasattr(table, "written_options")
                          for text in [table.written_options(context, results.get(table.NAME))] if text])
    text = ["# Benchmarks", "",
            f"Written by `scripts/bench --write` (`{options}`, "
            f"{context.elapsed / 60:.1f} minutes in all). Run it again to measure your own machine.", "",
            "## Machine", "", *machine_description(context.work, context.loads), ""]
    for table in tables.IN_RUN_ORDER:
        text += [*table.section(context, results.get(table.NAME)), ""]
    text += ["## Raw timings (seconds, in run order)", ""]
    for table in tables.IN_RUN_ORDER:
        if hasattr(table, "raw_lines") and results.get(table.NAME) is not None:
            text += table.raw_lines(results[table.NAME])
    return text


def write_document(context, results):
    markdown.path().write_text("\n".join(document_lines(context, results)) + "\n")
    log("wrote BENCHMARKS.md")
