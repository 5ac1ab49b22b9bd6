"""`scripts/bench --callgrind FILE`: one reversal of FILE under Valgrind's callgrind, printing the total
instruction count and the 15 costliest functions; it measures nothing else."""

import os
import shutil
import subprocess
import sys
import time

from .shell import die, ensure_dependencies, log, run


SIGSUSPEND_SHIM = r"""
/* Valgrind 3.19 writes into the signal mask passed to sigsuspend; libdispatch passes a constant
   mask (in dispatchMain, which Swift's async main uses), and Valgrind crashes. Pass a copy. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
int sigsuspend(const sigset_t *mask) {
    static int (*real)(const sigset_t *);
    sigset_t copy = *mask;
    if (!real) real = (int (*)(const sigset_t *))dlsym(RTLD_NEXT, "sigsuspend");
    return real(&copy);
}
"""


def callgrind(binary, source, work):
    if not source.is_file():
        die(f"{source} is not a file")
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        ensure_dependencies("bench")  # the bench set includes valgrind
    folder = work / "callgrind"
    folder.mkdir(parents=True, exist_ok=True)
    shim_source, shim = folder / "sigsuspend-shim.c", folder / "sigsuspend-shim.so"
    shim_source.write_text(SIGSUSPEND_SHIM)
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        die("no C compiler (cc, gcc or clang) to build the sigsuspend shim Valgrind needs")
    run([compiler, "-shared", "-fPIC", "-O2", "-o", str(shim), str(shim_source), "-ldl"])
    profile = folder / f"callgrind.out.{source.name}"
    output = folder / "out.wav"
    env = dict(os.environ, LD_PRELOAD=str(shim), TMPDIR=str(folder))
    log(f"== callgrind: {binary.name} convert {source} --reverse (this is ~50× slower than native)")
    started = time.monotonic()
    valgrind_log = folder / "valgrind.log"
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={profile}", f"--log-file={valgrind_log}",
                           str(binary), "convert", str(source), str(output), "--reverse", "-y", "--progress", "none"],
                          env=env, stdout=subprocess.DEVNULL)
    if done.returncode != 0:
        sys.stderr.write(valgrind_log.read_text(errors="replace")[-3000:])
        die(f"valgrind or reverse-audio failed (exit {done.returncode}); log: {valgrind_log}")
    log(f"   took {time.monotonic() - started:.1f} s; profile: {profile}")
    output.unlink(missing_ok=True)
    annotated = subprocess.run(["callgrind_annotate", "--inclusive=no", str(profile)],
                               check=True, capture_output=True, text=True).stdout
    if shutil.which("swift"):
        demangled = subprocess.run(["swift", "demangle", "--simplified"], input=annotated,
                                   capture_output=True, text=True)
        if demangled.returncode == 0 and demangled.stdout:
            annotated = demangled.stdout
    lines = annotated.splitlines()
    total = next((line.split()[0] for line in lines if "PROGRAM TOTALS" in line), "?")
    log(f"total instructions (Ir): {total}")
    log("top 15 functions by own instructions:")
    try:
        start = next(i for i, line in enumerate(lines) if "file:function" in line) + 2
    except StopIteration:
        start = len(lines)
    shown = 0
    for line in lines[start:]:
        if not line.strip():
            break
        log("  " + (line if len(line) <= 200 else line[:197] + "..."))
        shown += 1
        if shown == 15:
            break
