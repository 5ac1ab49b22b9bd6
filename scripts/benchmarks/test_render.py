"""Rendering without measuring: every table's console output and BENCHMARKS.md text, from fabricated
measurements, against golden files in testdata/ (made by the single-file scripts/bench this package
replaced, so they pin its output byte for byte). Runs in about a second:

    python3 -m unittest discover -s scripts -p 'test_*.py'

The measuring functions are replaced by fakes that return rows of the shape the real ones return; the
clock, the commit, the load averages and the machine are fixed. REGENERATE=1 rewrites the golden files
(after an intended change of the output; review the diff)."""

import contextlib
import difflib
import io
import os
import random
import sys
import tempfile
import unittest
from pathlib import Path

TESTDATA = Path(__file__).resolve().parent / "testdata"
TIMESTAMP = "2026-01-02 03:04 UTC"
COMMIT = "abc1234"
LOADS = ["0.50 0.40 0.30", "1.50 1.20 0.90"]
MACHINE = ["- CPU: Test CPU, 2 cores", "- RAM: 4.0 GiB; disk free in the work folder: 10 GiB"]
# A BENCHMARKS.md from an earlier run: its Machine, a measured Editing section, a stub Video section.
EARLIER = """# Benchmarks

Written by an earlier run.

## Machine

- CPU: Earlier CPU

## Editing: a 10-second cut

Measured 2025-12-31 23:59 UTC at commit 0000000 (load average 1 before all runs, 2 after).

| a | b |
|---|---:|

## Video reversal

Not measured yet.

## Raw timings (seconds, in run order)

- wav 1 min: ours 1.000
"""
# The same with a measured serve section whose page part is from an earlier run (--serve-page-only replaces that).
EARLIER_SERVE = EARLIER.replace("## Raw timings", """## serve: virtual reversed WAVs over HTTP

Measured 2025-12-30 22:00 UTC at commit 1111111 (load average 1 before all runs, 2 after).

| input | cold open ms |
|---|---:|
| mp3 60 min | 389.8 |

- **PASS**: median time to the first byte of a random 1-second range of a 60 min reversed input under 50 ms

### The page: first sound, direction, waveform, zoom and a long list in Chromium

Measured 2025-12-30 22:00 UTC at commit 1111111 (load average 1 before all runs, 2 after).

| page figure | median ms |
|---|---:|
| first sound forwards | 999.0 |

## Raw timings""")


# ---------------------------------------------------------------- fabricated measurements

class Fakes:
    """Rows of the shape the measuring functions return, built with `command_class` (old or new Command),
    deterministic for a given call sequence. `label_of(minutes, source_fmt, target)` is the encode table's label."""

    def __init__(self, command_class, encode_label):
        self.command_class = command_class
        self.encode_label = encode_label
        self.random = random.Random("bench")

    def command(self, name, runs=3, fail=False, temp=True):
        command = self.command_class(name, [name], Path("/nonexistent/out"), Path("/nonexistent/tmp"), None, False)
        if fail:
            command.failure = "exit 1: it failed"
            return command
        pick = self.random
        command.walls = [round(pick.uniform(0.05, 30), 3) for _ in range(runs)]
        command.rss = [round(pick.uniform(5, 90), 2) for _ in range(runs)]
        if temp:
            command.temp = [round(pick.uniform(0, 40), 2) for _ in range(runs)]
            command.temp_files = [round(pick.uniform(0, 40), 2) for _ in range(runs)]
        return command

    def commands(self, names, failing=()):
        return {name: self.command(name, fail=name in failing) for name in names}

    def inputs(self, work, durations, formats):
        folder = Path(work) / "inputs"
        folder.mkdir(parents=True, exist_ok=True)
        made = {}
        for minutes in durations:
            for fmt in formats:
                path = folder / f"signal-{minutes:g}min.{fmt}"
                if not path.exists():
                    path.write_bytes(b"x" * (1000 + 37 * len(fmt) + int(minutes * 11)))
                made[(minutes, fmt)] = path
        return made

    def reverse_row(self, binary, source, minutes, fmt, runs, work):
        names = ["ours", "fwd", "arev"] + (["sox"] if fmt != "m4a" else []) + ["ours_fwd"]
        failing = ["arev"] if (minutes, fmt) == (10, "flac") else []
        exact = {("wav", 60): False}.get((fmt, minutes), None if failing else True)
        return {"minutes": minutes, "format": fmt, "input": source.name, "size_mib": source.stat().st_size / 2 ** 20,
                "commands": self.commands(names, failing), "exact": exact}

    def encode_row(self, binary, source, minutes, source_fmt, target, runs, work):
        commands = self.commands(["ours", "fwd", "arev"], ["ours"] if (minutes, source_fmt) == (60, "wav") else [])
        if commands["ours"].failure:
            check = {"kind": target, "ok": None, "text": "NO (failed)"}
        elif target == "flac":
            check = {"kind": target, "ok": True, "text": "yes"}
        else:
            check = {"kind": target, "ok": minutes != 10, "text": "yes (Δ +1024 frames; arev Δ +2112)"}
        return {"minutes": minutes, "format": source_fmt, "target": target, "commands": commands, "check": check,
                "label": self.encode_label(minutes, source_fmt, target)}

    def range_row(self, binary, source, minutes, fmt, runs, work):
        match = {"equal": fmt != "mp3", "same_length": fmt != "flac", "samples": (88200, 88202), "max_diff": 3}
        return {"minutes": minutes, "format": fmt, "start": minutes * 30, "start_frame": minutes * 30 * 44100,
                "commands": self.commands(["range", "ours_fwd", "startup", "seek", "atrim"]),
                "exact": None if fmt == "wav" else match, "seek_exact": dict(match, equal=False),
                "label": f"{fmt} {minutes:g} min"}

    def jobs_row(self, binary, runs, work):
        return {"commands": self.commands(["jobs1", "jobs2"]), "identical": True, "files": 100, "cores": 2}

    def batch_result(self, binary, runs, work):
        pick = self.random
        rows = [{"shares": shares, "walls": [round(pick.uniform(2, 20), 3) for _ in range(runs)],
                 "rerun_walls": [round(pick.uniform(0.05, 0.9), 3) for _ in range(runs)],
                 "rss": [round(pick.uniform(20, 60), 1) for _ in range(shares * runs)], "failure": None,
                 "outputs": 1000, "doubled": False} for shares in (1, 2, 4)]
        rows[2]["failure"] = "exit 74: out: No space left on device" if runs == 1 else None
        return {"rows": rows, "cores": 2}

    def long_row(self, binary, work, hours, runs):
        if hours < 1:
            return {"skipped": "skipped: needs 12 GB free in /w (input and output WAV 4.4 GB each, plus a margin), "
                               "has 3.0 GB", "hours": hours}
        frames = round(hours * 3600 * 44100)
        return {"hours": hours, "frames": frames, "input_bytes": frames * 4 + 80,
                "commands": self.commands(["ours", "null"]),
                "checks": {"expected": frames, "magic": "RF64", "needs_rf64": True, "magic_ok": True,
                           "ffprobe": "wav / pcm_s16le", "ffprobe_ok": True, "duration_ts": frames,
                           "decoded": frames - 1, "spot": True, "output_bytes": frames * 4 + 80}}

    def edit_row(self, binary, source, minutes, fmt, runs, work):
        names = ["ours", "startup"] + (["sox"] if fmt != "m4a" else []) + ["ffmpeg", "ffmpeg_copy"]
        commands = self.commands(names, ["ffmpeg_copy"] if fmt == "flac" else [])
        checks = {}
        for index, name in enumerate(name for name in names if name != "startup"):
            if commands[name].failure:
                checks[name] = None
                continue
            checks[name] = {"start": None if (fmt, name) == ("wav", "sox") else index * 3 - 2,
                            "frames": 441000 + index * 1152, "max_diff": None if name == "ffmpeg" else index,
                            "codec": {"mp3": "mp3", "m4a": "aac", "flac": "flac", "wav": "pcm_s16le"}[fmt]}
            if fmt == "m4a":
                checks[name]["edit_frames"] = 441000 if name == "ours" else None
        cpu = {name: round(self.random.uniform(0.01, 2), 3) for name in names if not commands[name].failure}
        return {"minutes": minutes, "format": fmt, "commands": commands, "checks": checks, "wanted": 441000,
                "cpu": cpu, "start_frame": minutes * 30 * 44100, "label": f"{fmt} {minutes:g} min"}

    def mp3_cut_rows(self, binary, work):
        rows = []
        for label in ["lame -b 128", "lame -V9", "ffmpeg -b:a 64k, mono"]:
            results = {}
            for tool in ["ours", "mp3splt", "ffmpeg_copy"]:
                found = []
                for index in range(10):
                    if tool == "mp3splt" and index == 9:
                        found.append({"failed": True})
                        continue
                    exact = tool == "ours" and (label != "lame -V9" or index < 8) or index % 4 == 0
                    found.append({"failed": False, "exact": exact, "copied": tool == "ours",
                                  "length": 0 if exact else index - 5, "start": 0 if exact else 576 - index})
                results[tool] = found
            rows.append({"label": label, "results": results})
        return rows

    def threads_row(self, binary, source, minutes, fmt, counts, runs, work):
        names = ["fwd"] + (["cp"] if fmt == "wav" else [])
        names += [f"{kind}{n}" for n in counts for kind in ["rev", "conv"] + (["nat"] if fmt == "wav" else [])]
        commands = self.commands(names, ["rev4"] if fmt == "flac" else [])
        one = "one thread: the input cannot be read by several readers exactly (a pipe, a codec whose seek is not " \
              "bit-exact, a rate conversion)"
        used = {name: None if commands[name].failure else (1, one) if fmt == "m4a" and name[-1] != "1"
                else (int(name[-1]) if not name.startswith("conv") else 1, None)
                for name in names if name not in ("fwd", "cp")}
        exact = {name: commands[name].failure is None and (fmt, name) != ("m4a", "conv2")
                 for name in names if name != "fwd"}
        opens = {n: None if fmt == "m4a" else min(n, 2) for n in counts}
        return {"minutes": minutes, "format": fmt, "input": source.name, "size_mib": source.stat().st_size / 2 ** 20,
                "counts": list(counts), "commands": commands, "exact": exact, "used": used, "opens": opens}

    def video_input(self, work, minutes, size="1920x1080"):
        path = Path(work) / "inputs" / f"video-{minutes:g}min-1080p30.mp4"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"v" * int(3000 * minutes))
        return path

    def video_row(self, binary, source, minutes, preset, args, work, with_ffmpeg=True):
        names = ["ours"] + (["arev", "fwd"] if with_ffmpeg else [])
        commands = {}
        for name in names:
            commands[name] = self.command(name, runs=args.video_runs)
            commands[name].cpu = [round(self.random.uniform(10, 90), 2) for _ in range(args.video_runs)]
        return {"minutes": minutes, "label": f"{minutes:g} min 1080p30, {preset}", "preset": preset,
                "commands": commands, "same": True if with_ffmpeg else None,
                "frames": (3600, 3600) if with_ffmpeg else (36000, 36001), "skipped": None}

    def play_report(self, play_verdicts, binary, args, work):
        minutes = [float(m) if "." in m else int(m) for m in args.play_minutes.split(",")]
        runs = args.play_runs or args.runs
        rows, realtime = [], []
        for length in minutes:
            for fmt in args.format_list:
                commands = self.commands(["rev", "fwd", "ours_fwd"])
                cpu = {name: [round(self.random.uniform(0.1, 3), 3) for _ in range(runs)] for name in commands}
                rows.append({"minutes": length, "format": fmt, "commands": commands, "cpu": cpu, "exact": fmt != "m4a"})
                result = None if (length, fmt) == (60, "wav") else (15.2, 0.3, 21.5, "played; 2 underruns\n")
                row = {"minutes": length, "format": fmt, "device": "pulse", "seconds": args.play_seconds,
                       "result": result}
                if result is not None:
                    row["underruns"] = 2 if fmt == "mp3" else 0
                realtime.append(row)
        report = {"rows": rows, "realtime": realtime, "runs": runs, "minutes": minutes, "seconds": args.play_seconds,
                  "loads": ("0.10 0.20 0.30", "0.40 0.50 0.60"), "commit": COMMIT, "date": TIMESTAMP,
                  "pulse": "pulseaudio 16.1"}
        report["verdicts"] = play_verdicts(report)
        return report

    def waveform_row(self, binary, source, minutes, fmt, runs, work):
        commands = self.commands(["ours", "decode"], ["ours"] if fmt == "m4a" else [])
        cpu = {name: round(self.random.uniform(0.5, 9), 2) for name, command in commands.items() if not command.failure}
        return {"minutes": minutes, "format": fmt, "commands": commands, "cpu": cpu, "consistent": fmt != "m4a",
                "label": f"{fmt} {minutes:g} min"}

    def serve_layout(self, work, minutes, stream_minutes, formats):
        return {"minutes": minutes, "stream_minutes": stream_minutes, "formats": formats}

    def serve_result(self, binary, layout, count, work):
        pick = self.random

        def sample(ok=True):
            start = pick.randrange(44, 635_000_000)
            return {"range": (start, start + 176399), "first": round(pick.uniform(0.001, 0.03), 4),
                    "body_first": round(pick.uniform(0.002, 0.06), 4), "total": round(pick.uniform(0.003, 0.08), 4),
                    "ok": ok, "problem": None if ok else f"bytes={start}-{start + 176399}: first difference at byte "
                                                         f"{start + 6}"}

        ranges = []
        for fmt in layout["formats"]:
            ours = [sample(not (fmt == "m4a" and index == 1)) for index in range(count)]
            cold = sample()
            cold["body_first"] = round(pick.uniform(0.1, 0.6), 4)
            ranges.append({"format": fmt, "minutes": layout["minutes"], "size": 635_040_044, "failure": None,
                           "cold": cold, "ours": ours, "floor": [sample() for _ in range(count)],
                           "header_ok": True, "size_ok": fmt != "flac", "rss": round(pick.uniform(40, 90), 1),
                           "problems": [item["problem"] for item in ours if not item["ok"]]
                           + (["the WAV's size is not the oracle's 635040044 bytes"] if fmt == "flac" else []),
                           "floor_problems": [], "notes": []})
        streams = []
        for server in ("ours", "nginx"):
            one = [{"seconds": round(pick.uniform(0.5, 2), 3), "size": 105_840_044, "ok": True, "problem": None}]
            many = [{"seconds": round(pick.uniform(3, 20), 3), "size": 105_840_044, "ok": True, "problem": None}
                    for _ in range(16)]
            streams.append({"server": server, "failure": None, "idle": round(pick.uniform(5, 60), 1),
                            "one_wall": one[0]["seconds"], "one": one, "rss_one": round(pick.uniform(60, 90), 1),
                            "wall": max(item["seconds"] for item in many), "many": many,
                            "rss_many": round(pick.uniform(90, 250), 1), "problems": [],
                            "notes": ["ours: stderr: a line it printed"] if server == "ours" else []})
        return {"ranges": ranges, "streams": streams, "count": count, "floor": True, "minutes": layout["minutes"],
                "stream_minutes": layout["stream_minutes"], "stream_formats": sorted(layout["formats"]),
                "stream_bytes": 105_840_044}

    def page_layout(self, work, minutes):
        return {"minutes": minutes}

    def page_result(self, binary, layout, runs, work, start_server):
        """The page's figures; with one run the browser is missing (skipped)."""
        result = {"minutes": layout["minutes"], "runs": runs, "inputs": [], "list": [], "problems": [],
                  "skipped": None, "files": 1000, "file_seconds": 2}
        if runs == 1:
            result["skipped"] = "no /usr/bin/chromium (Debian's chromium and chromium-driver; scripts/test-browser installs them)"
            return result
        pick = self.random
        ranges = {"forwards": (150, 900), "backwards": (300, 1500), "to_backwards": (40, 260), "to_forwards": (40, 200),
                  "waveform": (300, 4000), "whole": (3000, 9000), "zoom": (20, 400)}
        for fmt in ("mp3", "flac"):
            runs_of = []
            for run in range(runs):
                values = {key: round(pick.uniform(*span), 1) for key, span in ranges.items()}
                if (fmt, run) == ("flac", 1):
                    values["backwards"] = None
                runs_of.append(values)
            zoom = [[{"zoom": 2 ** level, "samplesPerPixel": 2 ** (17 - level), "ms": round(pick.uniform(1, 300), 1)}
                     for level in range(1, 8)] for _ in range(runs)]
            steps = [{key: (round(pick.uniform(100, 900), 1), values[key]) for key in ("forwards", "to_backwards", "backwards")
                      if values[key] is not None} for values in runs_of]
            result["inputs"].append({"format": fmt, "runs": runs_of, "zoom": zoom, "steps": steps})
        result["list"] = [round(pick.uniform(400, 1500), 1) for _ in range(runs)]
        result["list_api"] = [(round(pick.uniform(200, 400), 1), round(pick.uniform(500, 1400), 1)) for _ in range(runs)]
        result["problems"] = ["flac run 2, backwards: RuntimeError: no row for signal-60min.flac within 60 s"]
        return result


# ---------------------------------------------------------------- scenarios

SCENARIOS = {  # name: (arguments, whether BENCHMARKS.md starts as EARLIER, or the text it starts as)
    "default-write": (["--durations", "1,10,60", "--formats", "mp3,m4a,flac,wav", "--runs", "3", "--write"], False),
    "default-write-over-earlier": (["--durations", "1,60", "--formats", "wav,m4a", "--range-minutes", "1.5",
                                    "--encode-pairs", "wav:m4a,flac:flac", "--encode-runs", "2", "--write"], True),
    "everything-write": (["--tables", "reverse,encode,range,jobs,edit,video,play", "--rf64", "--rf64-hours", "7",
                          "--video-long", "--video-presets", "medium,veryfast", "--durations", "1,10",
                          "--play-minutes", "10,60", "--write"], False),
    "rf64-skipped-write": (["--rf64", "--rf64-hours", "0.5", "--durations", "1", "--formats", "mp3", "--write"], True),
    "sections-write-over-earlier": (["--tables", "edit,jobs,video,play", "--formats", "mp3,m4a,flac,wav", "--write"],
                                    True),
    "sections-write-new-file": (["--tables", "play,jobs", "--formats", "wav", "--play-minutes", "1", "--write"], False),
    "console-only": (["--tables", "reverse,range,edit", "--formats", "flac,m4a", "--durations", "10"], False),
    "threads-write-over-earlier": (["--tables", "threads", "--threads-list", "4,2", "--runs", "3", "--write"], True),
    "threads-console": (["--tables", "threads", "--threads-minutes", "1", "--threads-list", "2", "--formats", "wav,m4a"],
                        False),
    "batch-write-new-file": (["--tables", "batch", "--write"], False),
    "waveform-write-new-file": (["--tables", "waveform", "--formats", "mp3,m4a,wav", "--write"], False),
    "batch-failed-console": (["--tables", "batch", "--runs", "1"], False),
    "serve-write-over-earlier": (["--tables", "serve", "--serve-ranges", "4", "--formats", "mp3,m4a,flac,wav", "--write"],
                                 True),
    "serve-page-only-write-over-serve": (["--tables", "serve", "--serve-page-only", "--write"], EARLIER_SERVE),
    "serve-page-only-write-new-file": (["--tables", "serve", "--serve-page-only", "--serve-page-runs", "2", "--write"],
                                       False),
    "serve-page-skipped-console": (["--tables", "serve", "--serve-page-only", "--serve-page-runs", "1"], False),
    "error-tables": (["--tables", "reverse,bogus"], False),
    "error-write-needs-defaults": (["--tables", "jobs,reverse", "--write"], True),
    "error-encode-pairs": (["--encode-pairs", "wav:mp3"], False),
    "error-encode-runs": (["--encode-runs", "0"], False),
    "error-rf64-hours": (["--rf64-hours", "30"], False),
    "error-video-presets": (["--video-presets", " , "], False),
    "error-range-minutes": (["--range-minutes", "0.01"], False),
    "error-durations": (["--durations", "1,x"], False),
    "error-threads-list": (["--tables", "threads", "--threads-list", "1,0"], False),
}


def run_new(arguments, root, work, earlier):
    """(console output, BENCHMARKS.md or None) of this package's run with the fakes in place."""
    from benchmarks import document, main, markdown
    from benchmarks.runner import Command
    from benchmarks.tables import batch, edit, encode, jobs, mp3_cuts, play, range as range_table, reverse, rf64, threads, video
    from benchmarks.tables import serve, serve_page, waveform

    fakes = Fakes(Command, encode.encode_label)
    loads = iter(LOADS)
    patches = [
        (main, "ROOT", root), (markdown, "ROOT", root), (main, "ensure_dependencies", lambda purpose: None),
        (main, "tool_binary", lambda: Path("/fake/reverse-audio")), (main, "load_average", lambda: next(loads)),
        (markdown, "timestamp", lambda: TIMESTAMP), (markdown, "current_commit", lambda: COMMIT),
        (document, "machine_description", lambda work, loads: MACHINE + [f"- load {loads[0]} / {loads[1]}"]),
        (reverse, "make_inputs", fakes.inputs), (encode, "make_inputs", fakes.inputs),
        (range_table, "make_inputs", fakes.inputs), (edit, "make_inputs", fakes.inputs),
        (reverse, "measure_input", fakes.reverse_row), (encode, "measure_encode", fakes.encode_row),
        (range_table, "measure_range", fakes.range_row), (jobs, "measure_jobs", fakes.jobs_row),
        (batch, "measure_batch", fakes.batch_result),
        (rf64, "measure_long", fakes.long_row), (edit, "measure_edit", fakes.edit_row),
        (mp3_cuts, "measure_mp3_cuts", fakes.mp3_cut_rows), (video, "make_video_input", fakes.video_input),
        (video, "measure_video", fakes.video_row), (threads, "make_inputs", fakes.inputs),
        (threads, "measure_input", fakes.threads_row), (waveform, "make_inputs", fakes.inputs),
        (waveform, "measure_waveform", fakes.waveform_row),
        (serve, "make_layout", fakes.serve_layout), (serve, "measure_serve", fakes.serve_result),
        (serve_page, "make_page_layout", fakes.page_layout), (serve_page, "measure_page", fakes.page_result),
        (play, "measure_all", lambda binary, args, work: fakes.play_report(play.verdicts, binary, args, work)),
    ]
    return run_patched(main.main, patches, arguments, root, work, earlier)


def run_patched(entry, patches, arguments, root, work, earlier):
    """Runs `entry` with `patches` ((module, name, value)) applied and sys.argv set, from `root`; restores
    everything. Returns (its output, the BENCHMARKS.md it left in `root`, or None)."""
    saved = [(module, name, getattr(module, name)) for module, name, _ in patches]
    saved_argv, saved_cwd = sys.argv, os.getcwd()
    benchmarks_md = Path(root) / "BENCHMARKS.md"
    if earlier:
        benchmarks_md.write_text(earlier if isinstance(earlier, str) else EARLIER)
    elif benchmarks_md.exists():
        benchmarks_md.unlink()
    output = io.StringIO()
    try:
        for module, name, value in patches:
            setattr(module, name, value)
        sys.argv = ["scripts/bench", "--work", str(work), *arguments]
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            try:
                entry()
            except SystemExit as exit:
                output.write(f"[exit {exit.code}]\n")
    finally:
        for module, name, value in saved:
            setattr(module, name, value)
        sys.argv = saved_argv
        os.chdir(saved_cwd)
    # The run's own wall time is the only figure the fakes do not fix.
    text = output.getvalue().replace(f"work folder: {work}", "work folder: WORK")
    return text, (benchmarks_md.read_text() if benchmarks_md.exists() else None)


class RenderTest(unittest.TestCase):
    maxDiff = None

    def check(self, name, got):
        golden = TESTDATA / name
        if os.environ.get("REGENERATE"):
            golden.parent.mkdir(exist_ok=True)
            golden.write_text(got)
        expected = golden.read_text()
        if got != expected:
            diff = "".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True), str(golden), "got"))
            self.fail(f"{name} differs from its golden file:\n{diff[:6000]}")

    def test_scenarios(self):
        for name, (arguments, earlier) in SCENARIOS.items():
            with self.subTest(name), tempfile.TemporaryDirectory() as root:
                output, written = run_new(arguments, Path(root), Path(root) / "work", earlier)
                self.check(f"{name}.out", output)
                self.check(f"{name}.md", written if written is not None else "(no BENCHMARKS.md)\n")

    def test_help(self):
        from benchmarks import options
        output = io.StringIO()
        saved = sys.argv
        sys.argv = ["scripts/bench", "--help"]
        try:
            os.environ["COLUMNS"] = "80"  # argparse wraps the help to the terminal's width
            with contextlib.redirect_stdout(output), self.assertRaises(SystemExit):
                options.parse_args()
        finally:
            sys.argv = saved
        self.check("help.out", output.getvalue())


if __name__ == "__main__":
    unittest.main()
