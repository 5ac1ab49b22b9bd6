#!/usr/bin/env python3
"""The test suites that run in process: in files that start neither the built tool nor ffmpeg (nor any
process), so they check logic in seconds. Prints a `swift test --filter` pattern naming them
(`--files` lists the files instead, `--count` their tests and all tests). Used by `scripts/test --quick`.

A file counts as starting a process when it names a helper that does (ProcessRunner, the ffmpeg
oracles, the built tool's runners, the live server); moving a test's logic onto in-memory doubles
moves it here without anything to update."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
STARTS_PROCESSES = re.compile(r"\b(ProcessRunner|FFmpegOracle|BuiltProducts|VideoOracle|LengthOracle|MP3Classes|NativePCM|"
                              r"SignalFiles|RunningServer|RunningTool|CLI\.|runShell|expectReversal|LongInputs|Process\(\))")
TYPE = re.compile(r"^(?:@Suite\b.*?\s)?(?:final\s+)?(?:struct|class|enum)\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)
TEST = re.compile(r"@Test\b|func test[A-Z]")


def test_files():
    return sorted(path for path in (ROOT / "Tests").glob("*Tests/*.swift"))


def in_process(path):
    text = path.read_text()
    return TEST.search(text) and not STARTS_PROCESSES.search(text)


def main():
    files = test_files()
    chosen = [path for path in files if in_process(path)]
    if "--files" in sys.argv:
        print("\n".join(str(path.relative_to(ROOT)) for path in chosen))
    elif "--count" in sys.argv:
        count = lambda paths: sum(len(TEST.findall(path.read_text())) for path in paths)
        print(f"{count(chosen)} of {count(files)} tests in {len(chosen)} of {len(files)} files run in process")
    else:
        names = sorted({name for path in chosen for name in TYPE.findall(path.read_text())})
        print(r"\.(" + "|".join(names) + r")/")


if __name__ == "__main__":
    main()
