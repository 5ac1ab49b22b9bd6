"""Threads: one input decoded on 1, 2 and the machine's cores (`--threads N`), reversed and converted forward to
WAV, for the --threads-minutes MP3, FLAC, WAV and AAC (M4A) inputs: wall time against ffmpeg's forward decode of
the same file in the same round-robin (and, for WAV, against `cp` of it), peak RSS, the threads each run really
used (from its --verbose), bit-exactness, and an Amdahl projection to 16 cores from the 1- and 2-thread times."""

import hashlib
import os
import re
import shutil
import subprocess
import textwrap

from ..audio import areverse_filter, decode_s16_args, pcm_md5, stated_end
from ..cells import pass_or_miss, value
from ..console import log_verdicts, text_table
from ..inputs import make_inputs, minutes_label
from ..markdown import kept_section, markdown_table, measured_line, raw_line, verdict_lines
from ..runner import MIB, Command, log_walls, run_round_robin
from ..shell import log

NAME = "threads"
HELP = "threads (one file on 1, 2 and all cores)"
REPLACEABLE = True  # `--write` with only such tables replaces just their sections of BENCHMARKS.md
HEADING = "## Threads: one file on every core"

FORMATS = ["mp3", "flac", "wav", "m4a"]  # the order of the rows; --formats can leave some out
GOAL_FORMATS = ["mp3", "flac", "wav"]  # the targets' files (AAC stays on one thread)
GOAL_THREADS = 2  # "on 2 cores"
FWD_RATIO_LIMIT = 0.65  # forward conversion against ffmpeg's forward decode
# A reversal on GOAL_THREADS cores against ffmpeg's forward decode (which already decodes FLAC on both cores with
# frame threads).
REVERSAL_LIMITS = {"mp3": 0.55, "flac": 0.70, "wav": 0.55}
CP_RATIO_LIMIT = 1.5
RSS_LIMIT_MIB = 96
PROJECTED_CORES = 16
LABELS = {"mp3": "MP3", "flac": "FLAC", "wav": "WAV", "m4a": "AAC (M4A)"}
OPENING = re.compile(r'^\d+\s+(?:open|openat|openat2)\((?:[^,]*, )?"([^"]*)".*\)\s+=\s+(\d+)', re.MULTILINE)
USED = re.compile(r"^\s*threads: (\d+) decoding(?: \((.*)\))?\s*$", re.MULTILINE)


# ---------------------------------------------------------------- options

def add_arguments(parser):
    parser.add_argument("--threads-minutes", type=float, default=30,
                        help="input length for the threads table, in minutes (default 30)")
    parser.add_argument("--threads-list", help="--threads values for the threads table (default 1,2,CORES; "
                                               "1 is always added: the reference)")


def check_arguments(parser, args):
    minutes = args.threads_minutes
    if minutes <= 0:
        parser.error("--threads-minutes: need a positive number of minutes")
    args.threads_minutes = int(minutes) if minutes == int(minutes) else minutes
    text = args.threads_list or f"1,2,{os.cpu_count() or 1}"
    try:
        counts = {int(item) for item in text.split(",") if item.strip()}
    except ValueError:
        parser.error(f"--threads-list: not a list of whole numbers: {text}")
    if any(count < 1 or count > 256 for count in counts):
        parser.error("--threads-list: thread counts go from 1 to 256")
    args.threads_counts = sorted(counts | {1})


def prepare(context):
    args = context.args
    formats = [fmt for fmt in FORMATS if fmt in args.format_list]
    context.inputs.update(make_inputs(context.work, [args.threads_minutes], formats))


# ---------------------------------------------------------------- measuring

def commands_for(binary, source, fmt, counts, run_dir):
    """{name: Command} in round-robin order: ffmpeg forward, cp (WAV), then per thread count N ours reversing
    (revN), ours converting forward (convN) and, for WAV, ours reversing PCM into the same PCM (natN)."""
    def make(name, argv_of_output):
        out, tmp = run_dir / name / "out", run_dir / name / "tmp"
        output = out / "out.wav"
        return Command(name, argv_of_output(output), out, tmp, output, False)

    ours = [str(binary), "convert", str(source)]
    tail = ["-y", "--progress", "none", "--verbose"]
    made = [make("fwd", lambda o: ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(source), str(o)])]
    if fmt == "wav":
        made.append(make("cp", lambda o: ["cp", str(source), str(o)]))
    for n in counts:
        made.append(make(f"rev{n}", lambda o, n=n: [*ours, str(o), "--reverse", "--threads", str(n), *tail]))
        made.append(make(f"conv{n}", lambda o, n=n: [*ours, str(o), "--threads", str(n), *tail]))
        if fmt == "wav":
            made.append(make(f"nat{n}", lambda o, n=n: [*ours, str(o), "--reverse", "--sample-format", "native",
                                                       "--threads", str(n), *tail]))
    return {command.name: command for command in made}


def threads_used(command):
    """(K, reason or None) from the `threads: K decoding` line of the command's last run's --verbose, or None."""
    try:
        text = (command.tmp_dir.parent / "stderr.txt").read_text(errors="replace")
    except OSError:
        return None
    found = USED.search(text)
    return (int(found.group(1)), found.group(2)) if found else None


def opens_of(binary, source, n, run_dir):
    """How many times one reversal on `--threads n` opens `source` (every successful open or openat of its path,
    by any thread, FFmpeg's or ours), counted by strace on an untimed run; None without strace or on failure."""
    if shutil.which("strace") is None:
        return None
    trace, output = run_dir / f"opens{n}.strace", run_dir / f"opens{n}.wav"
    run_dir.mkdir(parents=True, exist_ok=True)
    argv = ["strace", "-f", "-qq", "-e", "trace=open,openat,openat2", "-o", str(trace), str(binary), "convert",
            str(source), str(output), "--reverse", "--threads", str(n), "-y", "--progress", "none"]
    if subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
        return None
    target = os.path.realpath(source)
    text = trace.read_text(errors="replace")
    return sum(1 for path, _ in OPENING.findall(text) if os.path.realpath(path) == target)


def filtered_md5(source, graph):
    """MD5 of the s16 samples ffmpeg decodes from `source` through the filter `graph`, straight from the pipe (no
    file); None when ffmpeg fails."""
    digest = hashlib.md5()
    try:
        for chunk in decode_s16_args(source, ["-af", graph]):
            digest.update(chunk)
    except subprocess.CalledProcessError:
        return None
    return digest.hexdigest()


def forward_md5(source, fwd_output):
    """The forward oracle: ffmpeg's forward decode, cut at an M4A's stated end (ours ends there, as Apple's players
    do; the ffmpeg CLI decodes the last AAC packet whole)."""
    end = stated_end(source)
    return pcm_md5(fwd_output) if end is None else filtered_md5(source, f"atrim=end_sample={end}")


def file_md5(path):
    digest = hashlib.md5()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 24), b""):
            digest.update(chunk)
    return digest.hexdigest()


def measure_input(binary, source, minutes, fmt, counts, runs, work):
    run_dir = work / "run"
    commands = commands_for(binary, source, fmt, counts, run_dir)
    order = list(commands.values())
    run_round_robin(order, runs)
    log_walls(order)
    md5 = {name: pcm_md5(command.output) if command.failure is None else None for name, command in commands.items()}
    log("   checking against ffmpeg areverse and forward")
    arev = filtered_md5(source, areverse_filter(source))
    forward = forward_md5(source, commands["fwd"].output) if commands["fwd"].failure is None else None
    exact = {}
    for name in commands:
        if name == "fwd" or name == "cp":
            continue
        reference = md5["conv1"] if name.startswith("conv") else md5["rev1"]
        oracle = forward if name.startswith("conv") else arev
        exact[name] = md5[name] is not None and md5[name] == reference == oracle
    if "cp" in commands and commands["cp"].failure is None:
        exact["cp"] = file_md5(commands["cp"].output) == file_md5(source)
    used = {name: threads_used(command) for name, command in commands.items() if name[:3] in ("rev", "con", "nat")}
    log("   counting the opens of the input (strace, untimed)")
    opens = {n: opens_of(binary, source, n, run_dir) for n in counts}
    shutil.rmtree(run_dir, ignore_errors=True)
    return {"minutes": minutes, "format": fmt, "input": source.name, "size_mib": source.stat().st_size / MIB,
            "counts": list(counts), "commands": commands, "exact": exact, "used": used, "opens": opens}


def measure(context):
    args = context.args
    rows = []
    for fmt in [fmt for fmt in FORMATS if fmt in args.format_list]:
        source = context.inputs[(args.threads_minutes, fmt)]
        log(f"== threads {','.join(map(str, args.threads_counts))}: {fmt} {minutes_label(args.threads_minutes)} "
            f"({source.stat().st_size / MIB:.1f} MiB): warm-up, then {args.runs} round-robin runs")
        rows.append(measure_input(context.binary, source, args.threads_minutes, fmt, args.threads_counts, args.runs,
                                  context.work))
    return {"rows": rows, "verdicts": targets(rows)}


# ---------------------------------------------------------------- Amdahl

def amdahl(row, kind):
    """The serial and parallel seconds (S, P) of `kind` (rev, conv, nat) from T1 and T2 (else the smallest N > 1
    measured), T_N = S + P/N, with P >= 0; plus the N used and a note. None when T1 is missing."""
    c = row["commands"]
    one = c.get(f"{kind}1")
    if one is None or one.wall is None:
        return None
    t1 = one.wall
    others = [n for n in row["counts"] if n > 1 and c[f"{kind}{n}"].wall is not None]
    n = GOAL_THREADS if GOAL_THREADS in others else (min(others) if others else None)
    if n is None:
        return {"serial": t1, "parallel": 0.0, "n": None, "note": "no run on more than one thread"}
    used = row["used"].get(f"{kind}{n}")
    if used is None or used[0] < 2:
        return {"serial": t1, "parallel": 0.0, "n": n, "note": f"--threads {n} used one thread"}
    tn = c[f"{kind}{n}"].wall
    # tn = S + P/n and t1 = S + P, so P = (t1 - tn) / (1 - 1/n); a slower tn means no parallel part.
    parallel = min(t1, max(0.0, (t1 - tn) / (1 - 1 / n)))
    return {"serial": t1 - parallel, "parallel": parallel, "n": n, "note": None}


def projected(row, kind, cores=PROJECTED_CORES):
    split = amdahl(row, kind)
    return None if split is None else split["serial"] + split["parallel"] / cores


def amdahl_lines(rows):
    lines = []
    for row in rows:
        parts = []
        for kind, label in (("rev", "reversal"), ("conv", "conversion"), ("nat", "PCM→PCM")):
            split = amdahl(row, kind)
            if split is None:
                continue
            total = split["serial"] + split["parallel"]
            fraction = split["parallel"] / total if total else 0.0
            text = (f"{label} serial {split['serial']:.2f} s + parallel {split['parallel']:.2f} s "
                    f"(p = {fraction:.2f}) → {projected(row, kind):.2f} s on {PROJECTED_CORES}")
            if split["note"]:
                text += f" ({split['note']})"
            elif split["n"] != GOAL_THREADS:
                text += f" (from --threads 1 and {split['n']})"
            parts.append(text)
        lines.append(f"- {row_label(row)}: " + "; ".join(parts))
    return lines


# ---------------------------------------------------------------- cells and targets

def row_label(row):
    return f"{LABELS.get(row['format'], row['format'])} {minutes_label(row['minutes'])}"


def seconds_ratio(x, y):
    return "-" if x is None or not y else f"{x / y:.2f}×"


def used_cell(row, n):
    parts = []
    for kind in ("rev", "conv", "nat"):
        name = f"{kind}{n}"
        if name in row["commands"]:
            used = row["used"].get(name)
            parts.append("?" if used is None else f"{used[0]}{'*' if used[1] else ''}")
    return "/".join(parts)


def exact_cell(row, names):
    present = [name for name in names if name in row["exact"]]
    if not present:
        return "n/a"
    if any(row["commands"][name].failure is not None for name in present):
        return "NO (failed)"
    return "yes" if all(row["exact"][name] for name in present) else "NO"


HEADERS = ["input", "threads", "used", "opens", "s rev", "rev÷fwd", "RSS rev", "s conv", "conv÷fwd", "RSS conv",
           "s native", "native÷cp", "RSS native", "s fwd", "RSS fwd", "s cp", "rev exact", "conv exact"]
LEGEND = ("threads: `--threads N`; used: the threads our runs really decoded on, reversal/conversion(/PCM→PCM), from "
          "their `--verbose` (* one thread, with the reason it gives); opens: how many times a reversal on N threads "
          "opened the input (strace, every open of its path by any thread); s: median wall seconds; RSS: peak resident "
          "memory, MiB; rev = `convert X out.wav --reverse`, conv = `convert X out.wav` (forward), native = "
          "`--reverse --sample-format native` (WAV only: PCM into the same PCM), fwd = `ffmpeg -i X out.wav` "
          "(the floor the ratios use, same run), cp = `cp X out.wav` (WAV only); rev exact: the samples equal "
          "`--threads 1`'s and ffmpeg areverse's (and native's too, for WAV); conv exact: equal `--threads 1`'s and "
          f"ffmpeg's forward decode's. The `{PROJECTED_CORES} (Amdahl)` rows are projections, not measurements (below).")


def table_rows(rows):
    """(row, N) per measured thread count, then (row, None) for the projection."""
    return [(row, n) for row in rows for n in row["counts"] + [None]]


def cells(pair):
    row, n = pair
    c = row["commands"]
    fwd, cp = c["fwd"].wall, c["cp"].wall if "cp" in c else None
    common = [value(c, "fwd", "wall", 3), value(c, "fwd", "peak_rss", 1), value(c, "cp", "wall", 3)]
    if n is None:
        rev, conv = projected(row, "rev"), projected(row, "conv")
        nat = projected(row, "nat") if "nat1" in c else None

        def shown(x, present=True):
            return "n/a" if not present else ("-" if x is None else f"{x:.3f}")
        return [row_label(row), f"{PROJECTED_CORES} (Amdahl)", "-", "-",
                shown(rev), seconds_ratio(rev, fwd), "-", shown(conv), seconds_ratio(conv, fwd), "-",
                shown(nat, "nat1" in c), seconds_ratio(nat, cp) if "nat1" in c else "n/a", "n/a" if "nat1" not in c
                else "-", *common, "-", "-"]
    rev, conv, nat = f"rev{n}", f"conv{n}", f"nat{n}"
    opens = row.get("opens", {}).get(n)
    return [row_label(row), str(n), used_cell(row, n), "-" if opens is None else str(opens),
            value(c, rev, "wall", 3), seconds_ratio(c[rev].wall, fwd), value(c, rev, "peak_rss", 1),
            value(c, conv, "wall", 3), seconds_ratio(c[conv].wall, fwd), value(c, conv, "peak_rss", 1),
            value(c, nat, "wall", 3), seconds_ratio(c[nat].wall, cp) if nat in c else "n/a",
            value(c, nat, "peak_rss", 1), *common, exact_cell(row, [rev, nat]), exact_cell(row, [conv])]


def one_thread_reasons(rows):
    """The reasons our runs gave for decoding on one thread (the `*` in the used column)."""
    return sorted({used[1] for row in rows for used in row["used"].values() if used and used[1]})


def targets(rows):
    """[(verdict, text)] for the issue's targets."""
    by_format = {row["format"]: row for row in rows}
    results = []
    minutes = rows[0]["minutes"] if rows else 30
    length = f"{minutes:g}-minute"
    aside = "" if minutes == 30 else " (the target is for 30 minutes)"

    # 1. reversal on 2 cores against ffmpeg's forward decode, bit-exact, RSS.
    limits = ", ".join(f"{LABELS[fmt]} ≤ {REVERSAL_LIMITS[fmt]:.2f}×" for fmt in GOAL_FORMATS)
    label = (f"{length} reversal to WAV on {GOAL_THREADS} cores (`--threads {GOAL_THREADS}`) against ffmpeg's forward "
             f"decode of the same file ({limits}), bit-exact, peak RSS ≤ {RSS_LIMIT_MIB} MiB{aside}")
    checked, misses = [], []
    for fmt in GOAL_FORMATS:
        row = by_format.get(fmt)
        if row is None or f"rev{GOAL_THREADS}" not in row["commands"]:
            continue
        c = row["commands"]
        rev, fwd = c[f"rev{GOAL_THREADS}"], c["fwd"]
        share = rev.wall / fwd.wall if rev.wall is not None and fwd.wall else None
        exact = row["exact"].get(f"rev{GOAL_THREADS}") is True
        text = (f"{LABELS[fmt]} " + ("failed" if share is None else f"{share:.2f}×, {rev.peak_rss:.1f} MiB")
                + ("" if exact else ", NOT bit-exact"))
        checked.append(text)
        if share is None or share > REVERSAL_LIMITS[fmt] or not exact or rev.peak_rss > RSS_LIMIT_MIB:
            misses.append(text)
    missing = [LABELS[fmt] for fmt in GOAL_FORMATS
               if fmt not in by_format or f"rev{GOAL_THREADS}" not in by_format[fmt]["commands"]]
    if not checked:
        results.append(("NOT MEASURED", f"{label} (needs {GOAL_THREADS} in --threads-list and mp3, flac or wav in "
                                        "--formats)"))
    else:
        note = f"; not measured: {', '.join(missing)}" if missing else ""
        results.append((pass_or_miss(not misses), f"{label}: {'; '.join(checked)}{note}"))

    # 2. PCM into the same PCM against cp, at the best thread count.
    label = f"PCM into PCM (WAV, `--sample-format native`) ≤ {CP_RATIO_LIMIT:.1f}× `cp` of the same file"
    row = by_format.get("wav")
    if row is None:
        results.append(("NOT MEASURED", f"{label} (needs wav in --formats)"))
    else:
        c = row["commands"]
        best = best_count(row, "nat")
        cp = c["cp"].wall
        if best is None or not cp:
            results.append(("MISS", f"{label}: failed"))
        else:
            share = c[f"nat{best}"].wall / cp
            exact = all(row["exact"].get(f"nat{n}") for n in row["counts"])
            results.append((pass_or_miss(share <= CP_RATIO_LIMIT and exact),
                            f"{label}: {share:.2f}× at --threads {best} (the fastest; "
                            + ", ".join(f"{n}: {seconds_ratio(c[f'nat{n}'].wall, cp)}" for n in row["counts"])
                            + ")" + ("" if exact else ", NOT bit-exact")))

    # 3. forward conversion against ffmpeg's forward decode, at the best thread count.
    label = f"Conversion (forward) of the same files ≤ {FWD_RATIO_LIMIT:.2f}× ffmpeg's forward decode"
    checked, misses = [], []
    for fmt in GOAL_FORMATS:
        row = by_format.get(fmt)
        if row is None:
            continue
        c = row["commands"]
        best = best_count(row, "conv")
        if best is None or not c["fwd"].wall:
            checked.append(f"{LABELS[fmt]} failed")
            misses.append(fmt)
            continue
        share = c[f"conv{best}"].wall / c["fwd"].wall
        used = row["used"].get(f"conv{best}")
        exact = all(row["exact"].get(f"conv{n}") for n in row["counts"])
        checked.append(f"{LABELS[fmt]} {share:.2f}× (--threads {best}, "
                       f"{'?' if used is None else used[0]} used)" + ("" if exact else ", NOT bit-exact"))
        if share > FWD_RATIO_LIMIT or not exact:
            misses.append(fmt)
    if not checked:
        results.append(("NOT MEASURED", f"{label} (needs mp3, flac or wav in --formats)"))
    else:
        results.append((pass_or_miss(not misses), f"{label}: {'; '.join(checked)}"))

    # 4. a reversal on T threads opens its input at most T times.
    label = "A reversal on T threads opens its input at most T times"
    counted = [(row, n, row.get("opens", {}).get(n)) for row in rows for n in row["counts"]]
    known = [(row, n, opens) for row, n, opens in counted if opens is not None]
    if not known:
        results.append(("NOT MEASURED", f"{label} (needs strace)"))
    else:
        over = [f"{row_label(row)} --threads {n}: {opens}" for row, n, opens in known if opens > n]
        results.append((pass_or_miss(not over), f"{label}: " + ("; ".join(over) if over else
                        ", ".join(f"{row_label(row)} " + "/".join("-" if row['opens'].get(n) is None else str(row['opens'][n]) for n in row["counts"])
                                  for row in rows) + f" at --threads {'/'.join(map(str, rows[0]['counts']))}")))

    # 5. every thread count writes the same samples.
    wrong = [f"{row_label(row)} {name}" for row in rows for name, ok in row["exact"].items() if not ok]
    total = sum(len(row["exact"]) for row in rows)
    results.append((pass_or_miss(not wrong), f"every output bit-exact ({total} checked: each thread count against "
                                             "--threads 1 and ffmpeg areverse or forward; cp against its input)"
                    + (f"; NOT: {', '.join(wrong)}" if wrong else "")))
    return results


def best_count(row, kind):
    c = row["commands"]
    timed = [n for n in row["counts"] if c[f"{kind}{n}"].wall is not None]
    return min(timed, key=lambda n: c[f"{kind}{n}"].wall) if timed else None


# ---------------------------------------------------------------- output

METHOD = "\n\n".join(textwrap.fill(" ".join(paragraph.split()), width=110, break_on_hyphens=False,
                                         break_long_words=False)
                           for paragraph in f"""\
The inputs are the other tables' cached stereo 44.1 kHz signals (a chirp plus noise, 16-bit WAV and its MP3
192k, FLAC and AAC 192k encodings). For each input every command runs once untimed (so all of them find the
input in the page cache), then they alternate round-robin for N timed runs, each starting with empty output
folders after a `sync`: ffmpeg's forward decode (`ffmpeg -nostdin -v error -y -i X out.wav`, one thread: the
floor every ratio uses), for WAV `cp X out.wav` (the physical floor of a PCM reversal: the same bytes read and
written), and for each `--threads N` ours reversing (`reverse-audio convert X out.wav --reverse --threads N -y
--progress none --verbose`), ours converting forward (the same without `--reverse`) and, for WAV, ours
reversing with `--sample-format native` (PCM into the same PCM). Wall time is the median over the runs
(monotonic clock around `/usr/bin/time`); RSS the highest peak `/usr/bin/time -f '%e %M'` reported. The
threads a run used are read from the `threads: K decoding` line its `--verbose` printed (the last timed run);
forward conversion reports what the binary does, whether or not it honours `--threads` yet. Bit-exact: the MD5
of `ffmpeg -i F -f s16le -acodec pcm_s16le -` of each reversal equals that of `--threads 1` and of ffmpeg's
areverse, each forward conversion's that of `--threads 1` and of ffmpeg's forward decode (an M4A cut at its
stated end first, for both, as in the reversal table), and cp's output equals its input byte for byte.

Projection to {PROJECTED_CORES} cores (Amdahl): from T1 and T2 (`--threads 1` and `--threads 2`), the serial
part S and the parallel part P of a run follow from T1 = S + P and T2 = S + P/2; then T{PROJECTED_CORES} =
S + P/{PROJECTED_CORES}. It assumes that the file splits into at least {PROJECTED_CORES} segments, that each segment
costs on {PROJECTED_CORES} cores what it cost on 2 (no memory-bandwidth, cache or disk limit; here the input
and output sit in the page cache, and the output's write-back is not timed), that the serial part (opening,
probing, splitting, writing the header, joining) does not grow with the cores, and that the 2-thread run had
both cores to itself: on a shared 2-core machine anything else running shrinks the measured gain and so P.
A run that used one thread (AAC; the reason its `--verbose` gives is listed) is projected as T1.""".split("\n\n"))


def show(context, result):
    rows = result["rows"]
    if not rows:
        return
    log("")
    log(f"Threads: one file on every core ({context.args.runs} timed runs each; "
        f"--threads {','.join(map(str, context.args.threads_counts))}).")
    log(LEGEND.replace("`", ""))
    log(text_table(table_rows(rows), HEADERS, cells))
    for reason in one_thread_reasons(rows):
        log(f"* {reason}")
    log(f"Amdahl projection to {PROJECTED_CORES} cores (from T1 and T2; assumptions in the Method):")
    for line in amdahl_lines(rows):
        log(line)
    log("Targets:")
    log_verdicts(result["verdicts"])


def section(context, result):
    rows = [] if result is None else result["rows"]
    if not rows:
        kept = kept_section(HEADING, "run with --tables threads to measure it")
        return kept or [HEADING, "", "Not measured yet (run `scripts/bench --tables threads --write`).", "",
                        "### Method", "", METHOD]
    args = context.args
    options = (f"`scripts/bench --tables threads --threads-minutes {args.threads_minutes:g} --threads-list "
               f"{','.join(map(str, args.threads_counts))} --runs {args.runs}`")
    return [HEADING, "", measured_line(context.loads) + f" Options: {options}.", "",
            "### Method", "", METHOD, "",
            "### Results", "", LEGEND, "",
            markdown_table(table_rows(rows), HEADERS, cells), "",
            *[f"- `*` {reason}" for reason in one_thread_reasons(rows)],
            *([""] if one_thread_reasons(rows) else []),
            f"Amdahl projection to {PROJECTED_CORES} cores:", "", *amdahl_lines(rows), "",
            "### Targets", "", *verdict_lines(result["verdicts"]), "",
            "Raw timings (seconds, in run order):", "",
            *[raw_line(row_label(row), row["commands"]) for row in rows]]
