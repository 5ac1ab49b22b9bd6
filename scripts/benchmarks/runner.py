"""One shared way to time commands: each runs under `/usr/bin/time -f '%e %M'` (its peak RSS, in KiB,
of the process and its children as GNU time reports it) with a monotonic clock around it for the
wall time, while a thread polls its temporary disk (disk.py); the commands of a row alternate
round-robin so that a drift in the machine's load spreads over all of them."""

import os
import shutil
import statistics
import subprocess
import threading
import time

from .disk import disk_bytes
from .shell import log

POLL_SECONDS = 0.02
MIB = 1024 * 1024


def empty_folder(folder):
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)


class Command:
    """One command of a table's row and everything measured of it: per recorded run the wall seconds, the peak
    RSS (MiB), the peak temporary disk besides the output and of temporary files alone (MiB); `failure` once a
    run exits non-zero (later runs of it are skipped)."""

    def __init__(self, name, argv, out_dir, tmp_dir, output, subtract_output):
        self.name = name
        self.argv = argv
        self.out_dir = out_dir
        self.tmp_dir = tmp_dir
        self.output = output
        # True when the output is written inside a watched folder, so its own size is not temp.
        self.subtract_output = subtract_output
        self.walls, self.rss, self.temp, self.temp_files = [], [], [], []
        self.failure = None

    def run_once(self, record):
        empty_folder(self.out_dir)
        empty_folder(self.tmp_dir)
        os.sync()  # start with no dirty pages from the previous command
        watched = [self.tmp_dir] + ([self.out_dir] if self.subtract_output else [])
        time_file = self.tmp_dir.parent / "time.txt"
        err_file = self.tmp_dir.parent / "stderr.txt"
        env = dict(os.environ, TMPDIR=str(self.tmp_dir))
        peak = peak_files = 0
        with open(err_file, "w") as errors:
            start = time.monotonic()
            process = subprocess.Popen(["/usr/bin/time", "-f", "%e %M", "-o", str(time_file), *self.argv],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors, env=env)
            done = threading.Event()

            def poll():
                nonlocal peak, peak_files
                while not done.is_set():
                    total, files = disk_bytes(watched, process.pid, self.tmp_dir)
                    peak, peak_files = max(peak, total), max(peak_files, files)
                    done.wait(POLL_SECONDS)

            poller = threading.Thread(target=poll, daemon=True)
            poller.start()
            status = process.wait()
            wall = time.monotonic() - start
            done.set()
            poller.join()
        if status != 0:
            message = err_file.read_text(errors="replace").strip().splitlines()
            self.failure = f"exit {status}: " + (message[-1] if message else "no message")
            return
        fields = time_file.read_text().split()
        rss_mib = int(fields[-1]) / 1024
        temp = peak
        if self.subtract_output:
            try:
                temp -= os.stat(self.output).st_blocks * 512
            except OSError:
                pass
        if record:
            self.walls.append(wall)
            self.rss.append(rss_mib)
            self.temp.append(max(0, temp) / MIB)
            self.temp_files.append(peak_files / MIB)

    @property
    def wall(self):
        return statistics.median(self.walls) if self.walls else None

    @property
    def peak_rss(self):
        return max(self.rss) if self.rss else None

    @property
    def peak_temp(self):
        return max(self.temp) if self.temp else None

    @property
    def peak_temp_files(self):
        return max(self.temp_files) if self.temp_files else None


def run_round_robin(order, runs, warm_up=True):
    if warm_up:
        for command in order:  # puts the input in the page cache for everyone
            command.run_once(record=False)
    for _ in range(runs):
        for command in order:
            if command.failure is None:
                command.run_once(record=True)


def log_walls(order):
    for command in order:
        walls = " ".join(f"{wall:.3f}" for wall in command.walls)
        log(f"   {command.name:8} {walls or 'FAILED: ' + str(command.failure)}")


def cpu_seconds(order, runs):
    """{command name: median CPU seconds (user + sys, as /usr/bin/time reports them) over `runs` more round-robin
    runs}: a figure a loaded machine inflates less than wall time."""
    times = {command.name: [] for command in order}
    for _ in range(runs):
        for command in order:
            if command.failure is not None:
                continue
            empty_folder(command.out_dir)
            report = command.tmp_dir.parent / "cpu.txt"
            done = subprocess.run(["/usr/bin/time", "-f", "%U %S", "-o", str(report), *command.argv],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if done.returncode == 0:
                user, system = report.read_text().split()[-2:]
                times[command.name].append(float(user) + float(system))
    return {name: statistics.median(values) for name, values in times.items() if values}
