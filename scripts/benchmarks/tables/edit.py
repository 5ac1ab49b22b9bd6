"""Editing: a 10-second cut from the middle of --range-minutes WAV, FLAC, MP3 and M4A inputs, in the
input's format: ours (`trim`) against `sox trim` and `ffmpeg -ss -to` (re-encoding and -c copy);
time, CPU time, and each output's start and length error in frames. Its section ends with the MP3
cuts by encoder and setting (mp3_cuts.py), measured in the same run."""

import shutil
from pathlib import Path

from ..audio import decode_s16_args, probe
from ..cells import pass_or_miss, value
from ..console import log_columns, log_verdicts
from ..cuts import EDIT_SECONDS, EDIT_WINDOW_SECONDS, locate_cut
from ..inputs import make_inputs, minutes_label, sox_can_read
from ..markdown import kept_section, measured_line, raw_line, verdict_lines
from ..runner import Command, cpu_seconds, log_walls, run_round_robin
from ..shell import log
from . import mp3_cuts

NAME = "edit"
HELP = "edit (a 10 s cut)"
REPLACEABLE = True
HEADING = "## Editing: a 10-second cut"


EDIT_COMMANDS = ["ours", "sox", "ffmpeg", "ffmpeg_copy"]
EDIT_PEERS = ["sox", "ffmpeg", "ffmpeg_copy"]


def edit_commands(binary, source, fmt, start_frame, end_frame, rate, run_dir):
    def dirs(name):
        return run_dir / name / "out", run_dir / name / "tmp"

    name = f"out{source.suffix}"
    start, end = f"{start_frame / rate:.6f}", f"{end_frame / rate:.6f}"
    made = []
    out, tmp = dirs("ours")
    made.append(Command("ours", [str(binary), "trim", str(source), str(out / name), "--start", f"{start_frame}s",
                                 "--end", f"{end_frame}s", "-y"], out, tmp, out / name, True))
    out, tmp = dirs("startup")  # the process's fixed cost: load, link FFmpeg's libraries, exit
    made.append(Command("startup", [str(binary), "--version"], out, tmp, None, False))
    if sox_can_read(fmt):
        out, tmp = dirs("sox")
        made.append(Command("sox", ["sox", "--temp", str(tmp), str(source), str(out / name), "trim", f"{start_frame}s",
                                    f"={end_frame}s"], out, tmp, out / name, False))
    out, tmp = dirs("ffmpeg")
    made.append(Command("ffmpeg", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-ss", start, "-to", end, "-i", str(source),
                                   str(out / name)], out, tmp, out / name, False))
    out, tmp = dirs("ffmpeg_copy")
    made.append(Command("ffmpeg_copy", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-ss", start, "-to", end, "-i",
                                        str(source), "-c", "copy", str(out / name)], out, tmp, out / name, False))
    return {command.name: command for command in made}


def mp4_edit_frames(path, rate):
    """The frames an MP4's edit list states (its non-empty edits' durations at `rate`), or None without one."""
    data = Path(path).read_bytes()

    def boxes(start, end):
        found, position = {}, start
        while position + 8 <= end:
            size, kind = int.from_bytes(data[position:position + 4], "big"), data[position + 4:position + 8]
            header = 8
            if size == 1:
                size, header = int.from_bytes(data[position + 8:position + 16], "big"), 16
            elif size == 0:
                size = end - position
            if size < header:
                break
            found.setdefault(kind, (position + header, position + size))
            position += size
        return found

    try:
        moov = boxes(0, len(data))[b"moov"]
        inside = boxes(*moov)
        mvhd = inside[b"mvhd"][0]
        timescale = int.from_bytes(data[mvhd + (20 if data[mvhd] == 1 else 12):][:4], "big")
        elst = boxes(*boxes(*inside[b"trak"])[b"edts"])[b"elst"][0]
    except KeyError:
        return None
    width = 8 if data[elst] == 1 else 4
    total = 0
    for index in range(int.from_bytes(data[elst + 4:elst + 8], "big")):
        entry = elst + 8 + index * (2 * width + 4)
        duration = int.from_bytes(data[entry:entry + width], "big")
        media_time = int.from_bytes(data[entry + width:entry + 2 * width], "big", signed=True)
        if media_time >= 0:
            total += duration
    return round(total * rate / timescale)


def measure_edit(binary, source, minutes, fmt, runs, work):
    rate = int(probe(source).get("sample_rate", 44100) or 44100)
    start_frame = round(minutes * 60 / 2 * rate)
    end_frame = start_frame + EDIT_SECONDS * rate
    wanted = end_frame - start_frame
    window = EDIT_WINDOW_SECONDS * rate
    run_dir = work / "run"
    commands = edit_commands(binary, source, fmt, start_frame, end_frame, rate, run_dir)
    order = [commands[name] for name in EDIT_COMMANDS + ["startup"] if name in commands]
    run_round_robin(order, runs)
    cpu = cpu_seconds(order, runs)
    import numpy
    oracle = b"".join(decode_s16_args(source, ["-af", f"atrim=start_sample={start_frame - window}:"
                                                      f"end_sample={end_frame + window}"]))
    reference = numpy.frombuffer(oracle, dtype="<i2").reshape(-1, 2).astype(numpy.float64)
    checks = {}
    for name, command in commands.items():
        if name == "startup":
            continue
        if command.failure is not None:
            checks[name] = None
            continue
        found = locate_cut(command.output, reference, window, wanted)
        if found is not None and command.output.suffix in (".m4a", ".m4r"):
            found["edit_frames"] = mp4_edit_frames(command.output, rate)
        if found is not None:
            found["codec"] = probe(command.output).get("codec_name", "?")
        checks[name] = found
    row = {"minutes": minutes, "format": fmt, "commands": commands, "checks": checks, "wanted": wanted, "cpu": cpu,
           "start_frame": start_frame, "label": f"{fmt} {minutes_label(minutes)}"}
    log_walls(order)
    shutil.rmtree(run_dir, ignore_errors=True)
    return row


EDIT_HEADERS = ["input", "command", "s", "÷ fastest peer", "s start-up", "CPU s", "CPU ÷ fastest peer", "RSS", "codec",
                "start error", "length error", "max |Δ|"]
EDIT_LEGEND = ("s: median wall seconds; RSS: peak resident memory, MiB; ours = `reverse-audio trim X out.EXT --start "
               "As --end Bs` (same format: PCM samples copied, FLAC decoded and encoded again with the same samples, MP3 "
               "frames and AAC packets copied without re-encoding), sox = `sox X out.EXT trim As =Bs`, ffmpeg = `ffmpeg -ss S -to E -i X out.EXT` "
               "(re-encoding), ffmpeg copy = the same with `-c copy`; ÷ fastest peer: our time over the fastest of the "
               "others; start-up: `reverse-audio --version`, the fixed cost of starting our process (loading and "
               "linking FFmpeg's libraries), which no cut goes below; CPU s: median user + system seconds over as many "
               "runs again (start-up included), less inflated than wall time when the machine is busy (in steps of 10 ms); start error: frames the output starts after A (negative: before), found by aligning its decode "
               "with the source's; length error: frames ffmpeg decodes from the output minus B − A (for MP4, also what "
               "the edit list states: FFmpeg 5.1 decodes the last AAC packet whole, ignoring the edit's end); max |Δ|: "
               "the largest difference of a 16-bit sample from the source's decode once aligned (0: the exact slice).")


def edit_cells_for(row, name):
    command, check = row["commands"][name], row["checks"].get(name)
    peers = [row["commands"][other].wall for other in EDIT_PEERS if other in row["commands"] and row["commands"][other].wall]
    fastest = min(peers) if peers else None
    share = "-" if name != "ours" or not fastest or command.wall is None else f"{command.wall / fastest:.2f}"
    startup = value(row["commands"], "startup", "wall", 3) if name == "ours" else "-"
    cpu = row["cpu"].get(name)
    if name == "ours" and "startup" in row["cpu"]:
        cpu_text = f"{cpu:.3f} ({row['cpu']['startup']:.3f} start-up)" if cpu is not None else "-"
    else:
        cpu_text = "-" if cpu is None else f"{cpu:.3f}"
    cpu_peers = [row["cpu"][other] for other in EDIT_PEERS if other in row["cpu"]]
    cpu_share = f"{cpu / min(cpu_peers):.2f}" if name == "ours" and cpu and cpu_peers and min(cpu_peers) > 0 else "-"
    label = {"ours": "ours", "sox": "sox trim", "ffmpeg": "ffmpeg -ss -to", "ffmpeg_copy": "ffmpeg -ss -to -c copy"}[name]
    if check is None:
        return [row["label"], label, value(row["commands"], name, "wall", 3), share, startup, cpu_text, cpu_share, "-", "-",
                "failed", "-", "-"]
    start = "?" if check["start"] is None else f"{check['start']:+d}"
    length = f"{check['frames'] - row['wanted']:+d}"
    if check.get("edit_frames") is not None:
        length += f" (edit list: {check['edit_frames'] - row['wanted']:+d})"
    return [row["label"], label, value(row["commands"], name, "wall", 3), share, startup, cpu_text, cpu_share,
            value(row["commands"], name, "peak_rss", 1), check["codec"], start, length,
            "-" if check["max_diff"] is None else str(check["max_diff"])]


def edit_table_rows(rows):
    return [(row, name) for row in rows for name in EDIT_COMMANDS if name in row["commands"]]


def edit_targets(rows):
    if not rows:
        return []
    inexact, slower, shown = [], [], []
    for row in rows:
        check = row["checks"].get("ours")
        stated = None if check is None else (check.get("edit_frames") if check.get("edit_frames") is not None
                                             else check["frames"])
        if check is None or check["start"] != 0 or stated != row["wanted"]:
            inexact.append(row["format"])
        ours = row["commands"]["ours"].wall
        peers = [(row["commands"][name].wall, name) for name in EDIT_PEERS if name in row["commands"]
                 and row["commands"][name].wall]
        if ours is None or not peers:
            slower.append(f"{row['format']} (not measured)")
            continue
        fastest, who = min(peers)
        startup = row["commands"]["startup"].wall
        shown.append(f"{row['format']} {ours:.3f} s vs {who} {fastest:.3f} s"
                     + (f" (our start-up alone {startup:.3f} s)" if startup and ours > fastest else ""))
        if ours > fastest:
            slower.append(row["format"])
    cpu_slower, cpu_shown = [], []
    for row in rows:
        ours = row["cpu"].get("ours")
        peers = [(row["cpu"][name], name) for name in EDIT_PEERS if name in row["cpu"]]
        if ours is None or not peers:
            continue
        fastest, who = min(peers)
        cpu_shown.append(f"{row['format']} {ours:.3f} s vs {who} {fastest:.3f} s")
        if ours > fastest:
            cpu_slower.append(row["format"])
    return [(pass_or_miss(not inexact), "ours starts exactly at A and states exactly B − A frames (MP4: in its edit "
             "list) for " + ", ".join(row["format"] for row in rows) + (f"; NOT for: {', '.join(inexact)}" if inexact
                                                                          else "")),
            (pass_or_miss(not slower), "ours no slower than the fastest of sox, ffmpeg and ffmpeg -c copy: "
             + "; ".join(shown) + (f"; slower for: {', '.join(slower)}" if slower else "")),
            (pass_or_miss(not cpu_slower), "in CPU time (user + sys), ours no more than the fastest of the others: "
             + "; ".join(cpu_shown) + (f"; more for: {', '.join(cpu_slower)}" if cpu_slower else ""))]


EDIT_METHOD = f"""\
A {EDIT_SECONDS}-second cut from the middle (frames A = 1800 × 44100 to B = A + {EDIT_SECONDS} × 44100) of the
60-minute inputs above, into the input's own format: ours, SoX (which reads no M4A), and ffmpeg with input
seeking, re-encoding and with `-c copy`. One untimed warm-up each, then N round-robin runs as above. Then
every output is decoded to s16 by ffmpeg and placed against ffmpeg's exact decode of the source around
the cut (`atrim=start_sample=A−{EDIT_WINDOW_SECONDS} s:end_sample=B+{EDIT_WINDOW_SECONDS} s`) by cross-correlating a block
from its middle; the start error is where it begins, the length error how many frames it has too many."""


def prepare(context):
    args = context.args
    context.inputs.update(make_inputs(context.work, [args.range_minutes], args.format_list))


def measure(context):
    args = context.args
    rows = []
    for fmt in args.format_list:
        source = context.inputs[(args.range_minutes, fmt)]
        log(f"== a {EDIT_SECONDS}-second cut from the middle of {source.name}: warm-up, then {args.runs} "
            "round-robin runs")
        rows.append(measure_edit(context.binary, source, args.range_minutes, fmt, args.runs, context.work))
    return {"rows": rows, "verdicts": edit_targets(rows), "mp3_cut_rows": mp3_cuts.measure_mp3_cuts(context.binary,
                                                                                                      context.work)}


def show(context, result):
    args = context.args
    if not result["rows"]:
        return
    log("")
    log(f"A {EDIT_SECONDS}-second cut from the middle of {minutes_label(args.range_minutes)} inputs "
        f"({args.runs} timed runs each).")
    log(EDIT_LEGEND.replace("`", ""))
    log_columns([EDIT_HEADERS] + [edit_cells_for(row, name) for row, name in edit_table_rows(result["rows"])])
    log("Targets:")
    log_verdicts(result["verdicts"])
    if result["mp3_cut_rows"]:
        log("")
        log_columns([mp3_cuts.MP3_CUT_HEADERS] + [mp3_cuts.mp3_cut_cells(row) for row in result["mp3_cut_rows"]])
        log_verdicts(mp3_cuts.mp3_cut_targets(result["mp3_cut_rows"]))


def section(context, result):
    rows = [] if result is None else result["rows"]
    if not rows:
        kept = kept_section(HEADING, "run with --tables edit to measure it")
        return kept or [HEADING, "", "Not measured yet (run `scripts/bench --tables edit --write`).", "", EDIT_METHOD]
    pairs = edit_table_rows(rows)
    text = [HEADING, "", measured_line(context.loads), "", EDIT_METHOD, "", EDIT_LEGEND, "",
            "| " + " | ".join(EDIT_HEADERS) + " |", "|" + "---|" * 2 + "---:|" * (len(EDIT_HEADERS) - 2)]
    text += ["| " + " | ".join(edit_cells_for(row, name)) + " |" for row, name in pairs]
    text += [""] + verdict_lines(result["verdicts"])
    text += ["", "Raw timings (seconds, in run order):", ""]
    text += [raw_line(f"cut, {row['label']}", row["commands"]) for row in rows]
    mp3 = mp3_cuts.mp3_cut_section(result["mp3_cut_rows"] or [])
    return text + ([""] + mp3 if mp3 else [])
