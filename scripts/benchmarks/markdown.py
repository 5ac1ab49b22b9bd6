"""BENCHMARKS.md: the lines a section is made of, and replacing sections of the file in place (a run
that measures some tables rewrites their sections and leaves the others as they are)."""

import datetime

from .shell import ROOT, first_line, log

SECTION_PREFIX = "## "  # a section runs from its heading to the next heading of this level
RAW_TIMINGS_PREFIX = "## Raw timings"  # the last section; a section not in the file yet goes before it


def path():
    return ROOT / "BENCHMARKS.md"


def timestamp():
    """The local time written into BENCHMARKS.md (a function, so that tests can fix it)."""
    return datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')


def current_commit():
    return first_line(["git", "rev-parse", "--short", "HEAD"])


def markdown_table(rows, headers, cells_of):
    """The first column left-aligned, the others right-aligned."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" + "---:|" * (len(headers) - 1)]
    lines += ["| " + " | ".join(cells_of(row)) + " |" for row in rows]
    return "\n".join(lines)


def raw_line(label, commands):
    parts = [f"{name} {' '.join(f'{wall:.3f}' for wall in command.walls) or 'failed'}"
             for name, command in commands.items()]
    return f"- {label}: " + "; ".join(parts)


def verdict_lines(verdicts):
    return [f"- **{verdict}**: {text}" for verdict, text in verdicts]


def measured_line(loads):
    return (f"Measured {timestamp()} at commit {current_commit()} "
            f"(load average {loads[0]} before all runs, {loads[1]} after).")


def section_bounds(lines, heading):
    """(first, end) of `heading`'s section in `lines`: from the heading to the next `## ` line."""
    start = lines.index(heading)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(SECTION_PREFIX)), len(lines))
    return start, end


def existing_section(heading):
    """The lines of `heading`'s section in the current BENCHMARKS.md (up to the next `## `), or None."""
    try:
        lines = path().read_text().splitlines()
    except OSError:
        return None
    if heading not in lines:
        return None
    start, end = section_bounds(lines, heading)
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def kept_section(heading, how_to_measure):
    """The section already in BENCHMARKS.md when it holds a measurement (a line starting `Measured `), so that a
    run that did not measure this table keeps the figures of one that did; else None."""
    kept = existing_section(heading)
    if kept and any(line.startswith("Measured ") for line in kept):
        log(f"BENCHMARKS.md: kept the earlier '{heading[3:]}' section ({how_to_measure})")
        return kept
    return None


def table_section(name, heading, loads, result, legend, headers, lines):
    """The section of table `name` in BENCHMARKS.md: when measured (`result`), its heading, when, the
    legend, `lines` (its rows as cells) and its verdicts; else the section already there, or how to
    measure it."""
    if result is None:
        kept = kept_section(heading, f"run with --tables {name} to measure it")
        return kept or [heading, "", f"Not measured yet (run `scripts/bench --tables {name} --write`)."]
    return [heading, "", measured_line(loads), "", legend, "",
            markdown_table(lines, headers, lambda line: line), "", *verdict_lines(result["verdicts"])]


def write_sections(sections):
    """Replaces (or adds before the raw timings) each (heading, lines) section of BENCHMARKS.md, leaving
    the rest as it is."""
    file = path()
    lines = file.read_text().splitlines() if file.exists() else ["# Benchmarks", ""]
    for heading, section in sections:
        if heading in lines:
            start, end = section_bounds(lines, heading)
            lines[start:end] = section + [""]
        else:
            raw = next((i for i, line in enumerate(lines) if line.startswith(RAW_TIMINGS_PREFIX)), len(lines))
            lines[raw:raw] = section + [""]
        log(f"wrote the '{heading[3:]}' section of BENCHMARKS.md")
    file.write_text("\n".join(lines).rstrip("\n") + "\n")
