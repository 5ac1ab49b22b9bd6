"""What a run prints at its end: each table as aligned text, then its targets."""

from .shell import log


def text_table(rows, headers, cells_of):
    """The first column left-aligned, the others right-aligned, a rule under the headers."""
    lines = [headers] + [cells_of(row) for row in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(headers))]
    rendered = []
    for index, line in enumerate(lines):
        rendered.append("  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                                  for i, cell in enumerate(line)))
        if index == 0:
            rendered.append("  ".join("-" * width for width in widths))
    return "\n".join(rendered)


def log_columns(lines):
    """`lines` (headers first) with every column left-aligned and no rule: the editing tables' console form."""
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    for line in lines:
        log("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)))


def log_verdicts(verdicts):
    for verdict, text in verdicts:
        log(f"  {verdict:4}  {text}")


def show(title, legend, table, verdicts):
    log("")
    log(title)
    log(legend.replace("`", ""))
    log(table)
    log("Targets:")
    log_verdicts(verdicts)
