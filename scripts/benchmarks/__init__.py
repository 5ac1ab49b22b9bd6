"""scripts/bench as a package: `scripts/bench` puts scripts/ on sys.path and calls benchmarks.main.main.

    main.py      the run: options, inputs, every table in run order, the end-of-run print, --write
    options.py   the command line (shared options, then each table's own)
    tables/      one module per table, registered by the list in tables/__init__.py (which also says
                 what a table module declares; a new table is one new file plus its name in that list)
    runner.py    Command: one timed run under /usr/bin/time (wall, peak RSS), round-robin runs, CPU time
    disk.py      the temporary-disk watcher a Command polls while it runs
    inputs.py    the generated audio inputs, cached in the work folder
    audio.py     ffmpeg/ffprobe decoding and probing: the oracles outputs are checked against
    cuts.py      where a cut's output sits in its source (the editing tables)
    cells.py     table cells every table shares (a figure, a ratio, PASS/MISS)
    console.py   the tables as aligned text at the end of a run
    markdown.py  BENCHMARKS.md lines and section replacement
    document.py  the whole BENCHMARKS.md of a full --write
    machine.py   the Machine section and the load averages
    binary.py    the binary under test (REVERSE_AUDIO_BIN or a release build)
    callgrind.py --callgrind FILE
    shell.py     the repository root, logging, commands that must succeed
"""
