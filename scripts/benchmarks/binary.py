"""The reverse-audio binary under test: REVERSE_AUDIO_BIN when set, else a release build made here."""

import os
import subprocess
from pathlib import Path

from .shell import die, log, run


def tool_binary():
    given = os.environ.get("REVERSE_AUDIO_BIN")
    if given:
        path = Path(given).resolve()
        if not (path.is_file() and os.access(path, os.X_OK)):
            die(f"REVERSE_AUDIO_BIN={given} is not an executable file")
        log(f"== using {path} (REVERSE_AUDIO_BIN)")
        return path
    log("== build: swift build -c release --product reverse-audio (and reverse-audio-serve, which serve runs)")
    run(["swift", "build", "-c", "release", "--product", "reverse-audio"])
    run(["swift", "build", "-c", "release", "--product", "reverse-audio-serve"])
    bin_dir = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"],
                             check=True, capture_output=True, text=True).stdout.strip()
    path = Path(bin_dir) / "reverse-audio"
    if not path.is_file():
        die(f"build finished but {path} is missing")
    return path
