"""Playback (`--tables play`): `reverse-audio play` reversing whole files rendered --to-file against the
forward decode, and the CPU share of one core while playing in real time (a PulseAudio null sink of
its own). With --write alone it rewrites only the Playback section of BENCHMARKS.md."""

import os
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from .. import markdown
from ..audio import areverse_filter, pcm_md5
from ..console import show as show_table, text_table
from ..inputs import make_inputs, minutes_label
from ..machine import load_average
from ..markdown import existing_section, markdown_table, raw_line, verdict_lines
from ..runner import Command, log_walls
from ..shell import first_line, log

NAME = "play"
HELP = "play (playback against the forward decode)"
REPLACEABLE = True
# Its options come after --work, --write and --callgrind in --help, as they did when it was a plug-in.
OPTIONS_AFTER_COMMON = True
HEADING = "## Playback"
PLAY_COMMANDS = ["rev", "fwd", "ours_fwd"]  # round-robin order
RATIO_LIMITS = {"mp3": 1.3, "m4a": 1.3, "flac": 1.1, "wav": 1.1}
RSS_LIMIT_MIB = 64
REALTIME_SINK_RATE = 44100

METHOD = """\
`reverse-audio play X --reverse --to-file out.wav -y` renders a whole-file reverse play, streamed
from disk (chunks decoded from exact seeks, backwards), as fast as it goes: what a device would
receive. Against it: the forward decode, `ffmpeg -nostdin -v error -y -i X out.wav` (the floor
the issue sets: ≤ 1.3× for MP3 and AAC, ≤ 1.1× for FLAC and PCM), and ours playing forwards
(`play X --to-file out.wav`). One untimed warm-up each, then N round-robin runs; median wall time
(`/usr/bin/time`), CPU seconds (user + system), highest peak RSS. Exact: the MD5 of the reverse
play's s16 samples equals that of `ffmpeg -i X -af areverse`.

Real time: `reverse-audio play X --reverse --duration S --device pulse` on a PulseAudio null sink
the benchmark starts for itself (`pulseaudio -n` with `module-null-sink`, its own socket), which
consumes samples at the sink's clock, so the player runs paced as on a sound card (device periods
of 10 ms, a 40 ms buffer, the decode thread ahead): CPU seconds (user + system) ÷ seconds of audio
played is its share of one core, with the wall time (on a loaded machine the null sink's clock
runs late, so wall exceeds the audio's length), its peak RSS and the underruns it reported.
Without PulseAudio the row plays to ALSA's `null` device instead, which takes samples as fast as
they come (no pacing, so no per-period wake-ups), marked (null)."""

LEGEND = ("s: median wall seconds; cpu: median CPU seconds (user + system); RSS: peak resident memory, MiB; "
          "rev = ours `play --reverse --to-file`, fwd = `ffmpeg -i X out.wav` (the forward decode), ours-fwd = ours "
          "`play --to-file` forwards; = areverse: the reverse play's samples equal `-af areverse`'s.")
HEADERS = ["input", "s rev", "s fwd", "s ours-fwd", "cpu rev", "cpu fwd", "rev÷fwd", "target", "RSS rev", "RSS fwd",
           "= areverse"]
REALTIME_LEGEND = ("played S seconds backwards in real time (see above); cpu % = CPU seconds ÷ seconds of audio, "
                   "of one core; RSS: peak resident memory, MiB.")
REALTIME_HEADERS = ["input", "device", "audio s", "wall s", "cpu s", "cpu % of a core", "RSS", "underruns"]


def add_arguments(parser):
    parser.add_argument("--play-minutes", default="10,60",
                        help="input lengths for the playback table, in minutes (default 10,60)")
    parser.add_argument("--play-runs", type=int, help="timed runs per playback command (default: --runs)")
    parser.add_argument("--play-seconds", type=float, default=15,
                        help="seconds played in real time per input for the CPU share (default 15)")


def measure(context):
    return measure_all(context.binary, context.args, context.work)


def minutes_list(text):
    values = [float(item) for item in text.split(",") if item.strip()]
    return [int(m) if m == int(m) else m for m in values]


class PulseSink:
    """A PulseAudio daemon of our own with a null sink, reachable at its own socket; stopped by pid."""

    def __init__(self, folder):
        self.process = None
        self.socket = folder / "pulse.socket"
        self.env = None
        if shutil.which("pulseaudio") is None:
            return
        folder.mkdir(parents=True, exist_ok=True)
        self.socket.unlink(missing_ok=True)
        runtime = Path(tempfile.mkdtemp(prefix="pulse-", dir=folder))
        env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime), HOME=str(runtime))
        self.process = subprocess.Popen(
            ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--system=false", "--disallow-exit",
             "--log-target=stderr", "-L", f"module-native-protocol-unix socket={self.socket}",
             "-L", f"module-null-sink sink_name=bench rate={REALTIME_SINK_RATE} channels=2", "-L", "module-always-sink"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + 10
        while not self.socket.exists() and time.monotonic() < deadline and self.process.poll() is None:
            time.sleep(0.05)
        if not self.socket.exists():
            self.stop()
            return
        self.env = dict(os.environ, PULSE_SERVER=f"unix:{self.socket}")

    @property
    def running(self):
        return self.env is not None

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.env = None


def areverse_md5(path):
    import hashlib
    digest = hashlib.md5()
    # An M4A is cut at its container's stated end first, as ours and the reversal table's oracle are.
    with subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-af", areverse_filter(path), "-f", "s16le",
                           "-acodec", "pcm_s16le", "-"], stdout=subprocess.PIPE) as process:
        for chunk in iter(lambda: process.stdout.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest() if process.returncode == 0 else None


def timed(argv, env=None):
    """(wall, cpu seconds, peak RSS MiB, stdout) of one run under /usr/bin/time, or None when it failed."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as times:
        started = time.monotonic()
        done = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", times.name, *argv], env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True)
        wall = time.monotonic() - started
        if done.returncode != 0:
            return None
        fields = times.read().split()
    return wall, float(fields[-3]) + float(fields[-2]), int(fields[-1]) / 1024, done.stdout


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure_row(binary, source, minutes, fmt, runs, work):
    run_dir = work / "run-play"
    commands = {}
    for name in PLAY_COMMANDS:
        out, tmp = run_dir / name / "out", run_dir / name / "tmp"
        output = out / "out.wav"
        if name == "rev":
            argv = [str(binary), "play", str(source), "--reverse", "--to-file", str(output), "-y"]
        elif name == "fwd":
            argv = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(source), str(output)]
        else:
            argv = [str(binary), "play", str(source), "--to-file", str(output), "-y"]
        commands[name] = Command(name, argv, out, tmp, output, False)
    order = [commands[name] for name in PLAY_COMMANDS]
    cpu = {name: [] for name in PLAY_COMMANDS}
    for command in order:  # warm-up: the input in the page cache for everyone
        command.run_once(record=False)
    for _ in range(runs):
        for command in order:
            if command.failure is None:
                # CPU seconds of the run: the children's rusage grows by /usr/bin/time's and its child's.
                before = children_cpu()
                command.run_once(record=True)
                cpu[command.name].append(children_cpu() - before)
    exact = None
    if commands["rev"].failure is None:
        ours = pcm_md5(commands["rev"].output)
        exact = ours is not None and ours == areverse_md5(source)
    log_walls(order)
    shutil.rmtree(run_dir, ignore_errors=True)
    return {"minutes": minutes, "format": fmt, "commands": commands, "cpu": cpu, "exact": exact}


def realtime_row(binary, source, minutes, fmt, seconds, sink):
    device = "pulse" if sink.running else "null"
    result = timed([str(binary), "play", str(source), "--reverse", "--duration", f"{seconds:g}", "--device", device],
                   env=sink.env)
    row = {"minutes": minutes, "format": fmt, "device": device, "seconds": seconds, "result": result}
    if result is not None:
        underruns = 0
        for word, following in zip(result[3].split(), result[3].split()[1:]):
            if following.startswith("underrun"):
                underruns = int(word)
        row["underruns"] = underruns
    return row


def measure_all(binary, args, work):
    load_before = load_average()
    minutes = minutes_list(args.play_minutes)
    runs = args.play_runs or args.runs
    inputs = make_inputs(work, minutes, args.format_list)
    rows = []
    for length in minutes:
        for fmt in args.format_list:
            source = inputs[(length, fmt)]
            log(f"== play: {fmt} {minutes_label(length)}: warm-up, then {runs} round-robin runs")
            rows.append(measure_row(binary, source, length, fmt, runs, work))
    sink = PulseSink(work / "pulse")
    log("== play in real time: " + ("PulseAudio null sink" if sink.running else
                                          "no PulseAudio: the null device, unpaced (CPU per second of audio)"))
    realtime = []
    try:
        for length in minutes:
            for fmt in args.format_list:
                log(f"   {fmt} {minutes_label(length)}: {args.play_seconds:g} s backwards")
                realtime.append(realtime_row(binary, inputs[(length, fmt)], length, fmt, args.play_seconds, sink))
    finally:
        sink.stop()
    report = {"rows": rows, "realtime": realtime, "runs": runs, "minutes": minutes, "seconds": args.play_seconds,
              "loads": (load_before, load_average()),
              "commit": markdown.current_commit(),
              "date": markdown.timestamp(),
              "pulse": first_line(["pulseaudio", "--version"]) if shutil.which("pulseaudio") else None}
    report["verdicts"] = verdicts(report)
    return report


def median(values):
    values = sorted(value for value in values if value is not None)
    if not values:
        return None
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def ratio(row):
    rev, fwd = row["commands"]["rev"].wall, row["commands"]["fwd"].wall
    return rev / fwd if rev is not None and fwd else None


def cells(row):
    c = row["commands"]

    def number(value, digits):
        return "-" if value is None else f"{value:.{digits}f}"

    def wall(name):
        return "fail" if c[name].failure else number(c[name].wall, 3)

    value = ratio(row)
    return [f"{row['format']} {row['minutes']:g} min", wall("rev"), wall("fwd"), wall("ours_fwd"),
            number(median(row["cpu"]["rev"]), 3), number(median(row["cpu"]["fwd"]), 3),
            "-" if value is None else f"{value:.2f}×", f"≤ {RATIO_LIMITS[row['format']]:.1f}×",
            number(c["rev"].peak_rss, 1), number(c["fwd"].peak_rss, 1),
            {True: "yes", False: "NO", None: "NO (failed)"}[row["exact"]]]


def realtime_cells(row):
    result = row["result"]
    label = f"{row['format']} {row['minutes']:g} min"
    if result is None:
        return [label, row["device"], f"{row['seconds']:g}", "fail", "-", "-", "-", "-"]
    wall, cpu, rss, _ = result
    share = cpu / row["seconds"] * 100
    return [label, row["device"], f"{row['seconds']:g}", f"{wall:.2f}", f"{cpu:.3f}",
            f"{share:.1f}%" + ("" if row["device"] == "pulse" else " (null)"), f"{rss:.1f}", str(row.get("underruns", "-"))]


def verdicts(report):
    results = []
    shown, misses = [], []
    for row in report["rows"]:
        value = ratio(row)
        limit = RATIO_LIMITS[row["format"]]
        text = f"{row['format']} {row['minutes']:g} min " + ("failed" if value is None else f"{value:.2f}×")
        shown.append(text)
        if value is None or value > limit:
            misses.append(text)
    results.append(("MISS" if misses else "PASS", "whole-file reverse play ≤ 1.3× the forward decode for MP3 and AAC, "
                    f"≤ 1.1× for FLAC and PCM: {', '.join(shown)}"))
    peaks = [(f"{row['format']} {row['minutes']:g} min", row["commands"]["rev"].peak_rss) for row in report["rows"]]
    peaks += [(f"{row['format']} {row['minutes']:g} min real time", row["result"][2] if row["result"] else None)
              for row in report["realtime"]]
    over = [f"{label} " + ("failed" if value is None else f"{value:.1f} MiB")
            for label, value in peaks if value is None or value > RSS_LIMIT_MIB]
    worst = max((value or 0 for _, value in peaks), default=0)
    results.append(("MISS" if over else "PASS", f"peak RSS ≤ {RSS_LIMIT_MIB} MiB playing, to a file and in real time "
                    f"(highest {worst:.1f} MiB)" + (f"; over: {', '.join(over)}" if over else "")))
    wrong = [f"{row['format']} {row['minutes']:g} min" for row in report["rows"] if row["exact"] is not True]
    results.append(("MISS" if wrong else "PASS", f"the reverse play equals areverse for all {len(report['rows'])} inputs"
                    + (f"; NOT for: {', '.join(wrong)}" if wrong else "")))
    shares = [realtime_cells(row)[5] for row in report["realtime"] if row["result"] is not None]
    failed = [f"{row['format']} {row['minutes']:g} min" for row in report["realtime"] if row["result"] is None]
    under = [f"{row['format']} {row['minutes']:g} min: {row['underruns']}" for row in report["realtime"]
             if row.get("underruns")]
    results.append(("INFO" if not failed else "MISS", "CPU share of one core playing in real time: " + ", ".join(shares)
                    + (f"; failed: {', '.join(failed)}" if failed else "")
                    + (f"; underruns: {', '.join(under)}" if under else "; no underruns")))
    return results


def show(context, report):
    show_table(f"Playback: whole-file reverse play rendered --to-file ({report['runs']} timed runs each).", LEGEND,
               text_table(report["rows"], HEADERS, cells), [])
    show_table(f"Playback in real time ({report['seconds']:g} s backwards each).", REALTIME_LEGEND,
               text_table(report["realtime"], REALTIME_HEADERS, realtime_cells), report["verdicts"])


def section(context, report):
    """The Playback section of BENCHMARKS.md: this run's, else the one already there, else a pointer."""
    if report is None:
        kept = existing_section(HEADING)
        return kept or [HEADING, "", "Not measured yet: run `scripts/bench --tables play --write`."]
    lines = [HEADING, "", f"Measured with `scripts/bench --tables play --play-minutes {','.join(f'{m:g}' for m in report['minutes'])} "
             f"--play-runs {report['runs']} --play-seconds {report['seconds']:g}` on {report['date']}, reverse-audio at "
             f"commit {report['commit']}, on the machine above"
             + (f", {report['pulse']}" if report["pulse"] else "")
             + f"; load average {report['loads'][0]} before, {report['loads'][1]} after (other work on the machine "
             "skews wall times; the CPU seconds are steadier).", "", METHOD, "", LEGEND, "",
             markdown_table(report["rows"], HEADERS, cells), "", REALTIME_LEGEND, "",
             markdown_table(report["realtime"], REALTIME_HEADERS, realtime_cells), "",
             *verdict_lines(report["verdicts"]), "", "Raw timings (seconds, in run order):", ""]
    for row in report["rows"]:
        lines.append(raw_line(f"play, {row['format']} {row['minutes']:g} min", row["commands"]))
    return lines
