"""Where the repository is, and the few ways the benchmark talks to the outside: log lines, fatal
errors, commands that must succeed, and the first line a tool prints about itself."""

import subprocess
import sys
from pathlib import Path

# scripts/benchmarks/shell.py -> the repository root; main() moves there before anything runs.
ROOT = Path(__file__).resolve().parent.parent.parent


def log(message=""):
    print(message, flush=True)


def die(message):
    print(f"bench: error: {message}", file=sys.stderr)
    sys.exit(1)


def run(args, **kwargs):
    return subprocess.run(args, check=True, **kwargs)


def first_line(args):
    try:
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode != 0:
            return "?"
        text = (done.stdout or done.stderr).strip()
        return text.splitlines()[0].strip() if text else "?"
    except OSError:
        return "?"


def ensure_dependencies(purpose):
    run(["bash", "-c", f"source scripts/lib/dependencies.sh && ensure_dependencies {purpose}"])
