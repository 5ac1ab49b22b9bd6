"""What the machine is and how busy it is: the Machine section of BENCHMARKS.md and the load averages
every section quotes."""

import os
import platform
import shutil
import subprocess
from pathlib import Path

from . import markdown
from .shell import first_line


def load_average():
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def machine_description(work, loads):
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    free = shutil.disk_usage(work).free / 1024 ** 3
    commit = markdown.current_commit()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return [
        f"- CPU: {cpu}, {os.cpu_count()} cores",
        f"- RAM: {ram}; disk free in the work folder: {free:.0f} GiB",
        f"- Kernel: {platform.system()} {platform.release()} ({platform.machine()})",
        f"- {first_line(['ffmpeg', '-version'])}",
        f"- SoX: {first_line(['sox', '--version']).replace('sox:', '').strip()}",
        f"- {first_line(['swift', '--version'])}",
        f"- reverse-audio at commit {commit}{' (with local changes)' if dirty else ''}",
        f"- Date: {markdown.timestamp()}; "
        f"load average (1, 5, 15 min) {loads[0]} before the runs, {loads[1]} after "
        "(anything else running skews the timings)",
    ]


def available_memory():
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0
