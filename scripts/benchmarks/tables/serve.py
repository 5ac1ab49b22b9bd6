"""`reverse-audio serve`: byte ranges of the virtual reversed WAVs over HTTP. The time to the first byte of a
1-second range at a random place of a --serve-minutes (60) reversed MP3, FLAC and M4A (target: a median under
50 ms), 16 clients each streaming a different reversed file whole at once (every byte right, the server's
memory flat), against nginx serving the same reversal, made beforehand by `ffmpeg -af areverse`, as a static
file with byte ranges: the floor. Then the page's own figures in headless Chromium (tables/serve_page.py): first
sound both ways, the direction switch, the first waveform and every zoom level of 60-minute MP3 and FLAC inputs never
opened before, and a 1,000-file list (--serve-page-only measures only those, keeping the rest of the section)."""

import hashlib
import math
import os
import random
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import threading
import time
from urllib.parse import quote

from ..audio import areverse_filter
from ..cells import pass_or_miss
from ..console import show as show_table, text_table
from ..inputs import make_inputs, minutes_label, warm_cache, link_or_copy
from ..markdown import existing_section, kept_section, markdown_table, measured_line, verdict_lines
from ..shell import log
from . import serve_page

NAME = "serve"
HELP = ("serve (1-second byte ranges and 16 whole streams of virtual reversed WAVs over HTTP, against nginx; the "
        "page's first sound, switch, waveform, zoom and list in Chromium)")
REPLACEABLE = True  # `--write` with only such tables replaces just their sections of BENCHMARKS.md
HEADING = "## serve: virtual reversed WAVs over HTTP"

SERVE_FORMATS = ["mp3", "flac", "m4a"]  # the compressed formats, in this order, that --formats names
HEADER_BYTES = 44  # the canonical RIFF header both our WAV and the oracle's start with
RANGE_BYTES = 176400  # one second of stereo 16-bit 44.1 kHz
CLIENTS = 16
TTFB_TARGET_MS = 50.0
# 16 open files each keep a few decoded chunks of ~64 KiB and a decoder: tens of MiB. A server that held a
# whole decode would need ~101 MiB per 10-minute file (1.6 GiB for 16); 200 MiB leaves room for the runtime
# and allocator slack and still tells the two apart.
RSS_LIMIT_MIB = 200
SAMPLE_SECONDS = 0.05  # how often the servers' VmRSS is read
MIB = 1024 * 1024
CLEAN_STOP = "reverse-audio: error: stopped by SIGINT; no output was left behind"  # serve's own line on SIGINT


# ---------------------------------------------------------------- files: inputs, oracles, served folders

def wav_header(frames, channels=2, rate=44100):
    data = frames * channels * 2
    return (b"RIFF" + struct.pack("<I", 36 + data) + b"WAVE" + b"fmt "
            + struct.pack("<IHHIIHH", 16, 1, channels, rate, rate * channels * 2, channels * 2, 16)
            + b"data" + struct.pack("<I", data))


def file_md5(path):
    digest = hashlib.md5()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 22), b""):
            digest.update(chunk)
    return digest.hexdigest()


def oracle_wav(source, folder):
    """`source` reversed by the ffmpeg CLI (`-af areverse`, an M4A cut first at its stated end) as a WAV with the
    canonical 44-byte header: the exact expected bytes, and the file nginx serves. Cached; (path, its MD5)."""
    path = folder / f"{source.name}.reversed.wav"
    checksum = folder / f"{source.name}.reversed.md5"
    if path.exists() and checksum.exists():
        return path, checksum.read_text().strip()
    log(f"== making the oracle {path.name} (ffmpeg -af {areverse_filter(source)})")
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{path.name}.partial"
    with open(partial, "wb") as handle:
        handle.write(bytes(HEADER_BYTES))
        handle.flush()
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(source), "-af", areverse_filter(source),
                        "-f", "s16le", "-acodec", "pcm_s16le", "-ac", "2", "-ar", "44100", "-"], stdout=handle,
                       check=True)
        size = handle.tell()
        handle.seek(0)
        handle.write(wav_header((size - HEADER_BYTES) // 4))
    os.replace(partial, path)
    checksum.write_text(file_md5(path) + "\n")
    return path, checksum.read_text().strip()


def make_layout(work, minutes, stream_minutes, formats):
    """Everything the table serves, made once and cached in the work folder: for each format a folder holding
    the `minutes` input (a hard link: the server refuses links that leave its folder) and its oracle; 16 copies of
    the `stream_minutes` inputs (different files: the server shares one open file per device and inode) cycling
    through the formats, and beside them hard links to their oracles for nginx."""
    inputs = make_inputs(work, sorted({minutes, stream_minutes}), formats)
    base = work / "serve"
    oracles = base / "oracles"
    layout = {"ranges": [], "streams": [], "stream_minutes": stream_minutes, "minutes": minutes}
    for fmt in formats:
        source = inputs[(minutes, fmt)]
        oracle, _ = oracle_wav(source, oracles)
        ours_dir, floor_dir = base / f"ranges-{fmt}" / "ours", base / f"ranges-{fmt}" / "nginx"
        link_or_copy(source, ours_dir / source.name)
        link_or_copy(oracle, floor_dir / f"{source.stem}-{fmt}.wav")
        layout["ranges"].append({"format": fmt, "minutes": minutes, "source": source, "oracle": oracle,
                                 "ours_dir": ours_dir, "name": source.name,
                                 "floor_dir": floor_dir, "floor_name": f"{source.stem}-{fmt}.wav"})
    stream_oracles = {fmt: oracle_wav(inputs[(stream_minutes, fmt)], oracles) for fmt in formats}
    ours_dir = base / f"streams-{stream_minutes:g}min-{CLIENTS}" / "ours"
    floor_dir = ours_dir.parent / "nginx"
    done = ours_dir.parent / ".complete"
    if not done.exists():
        log(f"== copying {CLIENTS} {minutes_label(stream_minutes)} inputs into {ours_dir}")
        shutil.rmtree(ours_dir.parent, ignore_errors=True)
    for index in range(CLIENTS):
        fmt = formats[index % len(formats)]
        name = f"client-{index:02}.{fmt}"
        oracle, md5 = stream_oracles[fmt]
        if not done.exists():
            ours_dir.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(inputs[(stream_minutes, fmt)], ours_dir / name)
            link_or_copy(oracle, floor_dir / f"client-{index:02}-{fmt}.wav")
        layout["streams"].append({"format": fmt, "name": name, "floor_name": f"client-{index:02}-{fmt}.wav",
                                  "md5": md5, "size": oracle.stat().st_size})
    done.touch()
    layout["streams_ours_dir"], layout["streams_floor_dir"] = ours_dir, floor_dir
    return layout


# ---------------------------------------------------------------- HTTP over a raw socket

def quoted(name):
    """`name` as one URL path segment."""
    return quote(name, safe="")


def http_get(port, path, byte_range=None, keep=False, timeout=300):
    """One GET on a new connection (`Connection: close`). Returns {"status", "headers", "first" (seconds from
    connecting to the first byte of the answer), "body_first" (to the first body byte), "total", "size" (body
    bytes), "md5" (the body's), "body" (with keep)}."""
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
    if byte_range is not None:
        request += f"Range: bytes={byte_range[0]}-{byte_range[1]}\r\n"
    request += "\r\n"
    digest, parts = hashlib.md5(), []
    start = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(request.encode())
        head, first = b"", None
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("the connection closed before the end of the headers")
            if first is None:
                first = time.perf_counter() - start
            head += chunk
        head, _, rest = head.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {key.strip().lower(): value.strip()
                   for key, value in (line.split(":", 1) for line in lines[1:] if ":" in line)}
        length = int(headers.get("content-length", -1))
        body_first = time.perf_counter() - start if rest else None
        received = len(rest)
        digest.update(rest)
        if keep:
            parts.append(rest)
        buffer = bytearray(1 << 20)
        view = memoryview(buffer)
        while length < 0 or received < length:
            count = sock.recv_into(buffer)
            if count == 0:
                break
            if body_first is None:
                body_first = time.perf_counter() - start
            digest.update(view[:count])
            if keep:
                parts.append(bytes(view[:count]))
            received += count
        total = time.perf_counter() - start
    return {"status": status, "headers": headers, "first": first, "body_first": body_first, "total": total,
            "size": received, "length": length, "md5": digest.hexdigest(), "body": b"".join(parts) if keep else None}


def wait_for_port(port, process, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.02)
    return False


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ---------------------------------------------------------------- the servers and their memory

def process_tree(pid):
    """`pid` and its children (nginx: the master and its workers)."""
    pids = [pid]
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            pids += [int(child) for child in handle.read().split()]
    except OSError:
        pass
    return pids


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class RssSampler:
    """Reads the summed VmRSS of a process tree every SAMPLE_SECONDS; `peak()` since the last `reset()`."""

    def __init__(self, pid):
        self.pid = pid
        self.highest = 0
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def current(self):
        return sum(status_kib(pid, "VmRSS") for pid in process_tree(self.pid)) / 1024

    def run(self):
        while not self.stop.is_set():
            now = self.current()
            with self.lock:
                self.highest = max(self.highest, now)
            self.stop.wait(SAMPLE_SECONDS)

    def reset(self):
        with self.lock:
            self.highest = self.current()

    def peak(self):
        with self.lock:
            return max(self.highest, self.current())

    def close(self):
        self.stop.set()
        self.thread.join()


class Server:
    """A server under test started on a folder: `port`, `pid`, `prefix` (the path before a URL-encoded name),
    `suffix` (after it), `stop()` -> a note on how it ended when not cleanly, else None."""

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT if self.kind == "ours" else signal.SIGQUIT)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                return "did not stop within 15 s of the signal (killed)"
        self.errors.close()
        # Ours says how it stopped on SIGINT (exit 130); only another line or status is worth a note.
        lines = [line for line in self.errors_path.read_text(errors="replace").splitlines()
                 if line.strip() and line.strip() != CLEAN_STOP]
        notes = []
        if self.process.returncode not in (0, 130, -signal.SIGINT, -signal.SIGQUIT):
            notes.append(f"exit {self.process.returncode}")
        if lines:
            notes.append("stderr: " + " | ".join(lines[-3:]))
        return "; ".join(notes) or None

    def url(self, name):
        return self.prefix + quoted(name) + self.suffix


def start_ours(binary, folder, scratch):
    server = Server()
    server.kind = "ours"
    scratch.mkdir(parents=True, exist_ok=True)
    server.errors_path = scratch / "serve-stderr.txt"
    server.errors = open(server.errors_path, "w")
    server.process = subprocess.Popen([str(binary), "serve", str(folder), "--port", "0"], stdin=subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=server.errors, text=True)
    line = server.process.stdout.readline().strip()
    if not line.startswith("Listening on http://127.0.0.1:"):
        server.stop()
        raise RuntimeError(f"serve printed {line!r} instead of 'Listening on http://127.0.0.1:PORT/'")
    server.port = int(line.rsplit(":", 1)[1].strip("/"))
    server.pid = server.process.pid
    server.prefix, server.suffix = "/api/files/", "/audio?direction=reverse"
    return server


def nginx_binary():
    return shutil.which("nginx") or next((path for path in ("/usr/sbin/nginx",) if os.access(path, os.X_OK)), None)


def start_nginx(folder, scratch):
    """nginx 1 worker, sendfile, no access log, on a free loopback port, serving `folder` as static files."""
    server = Server()
    server.kind = "nginx"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    server.port = free_port()
    user = "user root;\n" if os.geteuid() == 0 else ""
    temp = "".join(f"  {name}_temp_path {scratch / name};\n" for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (scratch / "nginx.conf").write_text(
        f"{user}daemon off;\nworker_processes 1;\npid {scratch / 'nginx.pid'};\nerror_log {scratch / 'error.log'} warn;\n"
        "events { worker_connections 256; }\n"
        "http {\n  access_log off;\n  sendfile on;\n  tcp_nopush on;\n  types { audio/wav wav; }\n" + temp
        + f"  server {{\n    listen 127.0.0.1:{server.port};\n    root {folder};\n  }}\n}}\n")
    server.errors_path = scratch / "stderr.txt"
    server.errors = open(server.errors_path, "w")
    server.process = subprocess.Popen([nginx_binary(), "-p", str(scratch), "-c", str(scratch / "nginx.conf"),
                                       "-e", str(scratch / "error.log")], stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=server.errors)
    if not wait_for_port(server.port, server.process):
        note = server.stop()
        raise RuntimeError(f"nginx did not start ({note or 'no message'})")
    server.pid = server.process.pid
    server.prefix, server.suffix = "/", ""
    return server


# ---------------------------------------------------------------- random 1-second ranges

def expected_bytes(oracle, first, last):
    with open(oracle, "rb") as handle:
        handle.seek(first)
        return handle.read(last - first + 1)


def timed_range(server, name, oracle, byte_range):
    """One range request: {"range", "first", "body_first", "total", "ok", "problem"}."""
    first, last = byte_range
    try:
        answer = http_get(server.port, server.url(name), byte_range, keep=True)
    except OSError as error:
        return {"range": byte_range, "first": None, "body_first": None, "total": None, "ok": False,
                "problem": f"bytes={first}-{last}: {error}"}
    problem = None
    if answer["status"] != 206:
        problem = f"status {answer['status']}: {answer['body'][:200].decode(errors='replace')}"
    elif answer["body"] != expected_bytes(oracle, first, last):
        body, want = answer["body"], expected_bytes(oracle, first, last)
        at = next((i for i, (a, b) in enumerate(zip(body, want)) if a != b), min(len(body), len(want)))
        problem = f"{len(body)} bytes (wanted {len(want)}), first difference at byte {first + at}"
    elif not answer["headers"].get("content-range", "").startswith(f"bytes {first}-{last}/"):
        problem = f"Content-Range {answer['headers'].get('content-range')!r}"
    return {"range": byte_range, "first": answer["first"], "body_first": answer["body_first"],
            "total": answer["total"], "ok": problem is None,
            "problem": None if problem is None else f"bytes={first}-{last}: {problem}"}


def random_ranges(size, count, seed):
    pick = random.Random(seed)
    ranges = []
    for _ in range(count):
        start = pick.randrange(HEADER_BYTES, size - RANGE_BYTES)
        ranges.append((start, start + RANGE_BYTES - 1))
    return ranges


def measure_ranges(binary, entry, count, work, floor):
    """Our server on the input's folder: the first request (the open), then `count` random 1-second ranges, each
    followed by the same range from nginx serving the oracle (`floor`)."""
    fmt, oracle = entry["format"], entry["oracle"]
    size = oracle.stat().st_size
    row = {"format": fmt, "minutes": entry["minutes"], "size": size, "cold": None, "ours": [], "floor": [], "failure": None, "floor_note": None,
           "problems": [], "floor_problems": [], "notes": [], "rss": None, "header_ok": None, "size_ok": None}
    warm_cache(entry["source"])
    warm_cache(oracle)
    cold, *ranges = random_ranges(size, count + 1, f"serve-{fmt}")
    try:
        ours = start_ours(binary, entry["ours_dir"], work / "run" / "serve")
    except (OSError, RuntimeError) as error:
        row["failure"] = str(error)
        return row
    nginx = None
    if floor:
        try:
            nginx = start_nginx(entry["floor_dir"], work / "run" / "serve-nginx")
            timed_range(nginx, entry["floor_name"], oracle, cold)  # untimed: nginx opens the file
        except (OSError, RuntimeError) as error:
            row["floor_note"] = str(error)
    try:
        row["cold"] = timed_range(ours, entry["name"], oracle, cold)
        for byte_range in ranges:
            row["ours"].append(timed_range(ours, entry["name"], oracle, byte_range))
            if nginx:
                row["floor"].append(timed_range(nginx, entry["floor_name"], oracle, byte_range))
        whole = http_get(ours.port, ours.url(entry["name"]), (0, HEADER_BYTES - 1), keep=True)
        row["header_ok"] = whole["body"] == expected_bytes(oracle, 0, HEADER_BYTES - 1)
        row["size_ok"] = whole["headers"].get("content-range", "").endswith(f"/{size}")
        row["rss"] = status_kib(ours.pid, "VmHWM") / 1024
    finally:
        note = ours.stop()
        if note:
            row["notes"].append(f"{fmt} ranges, ours: {note}")
        if nginx:
            note = nginx.stop()
            if note:
                row["notes"].append(f"{fmt} ranges, nginx: {note}")
    row["problems"] += [sample["problem"] for sample in [row["cold"], *row["ours"]] if sample and not sample["ok"]]
    if not row["header_ok"]:
        row["problems"].append("the 44-byte header differs from the oracle's")
    if not row["size_ok"]:
        row["problems"].append(f"the WAV's size is not the oracle's {size} bytes")
    row["floor_problems"] += [sample["problem"] for sample in row["floor"] if not sample["ok"]]
    log(f"  {fmt}: cold {ms(row['cold']['body_first'])} ms, median TTFB {ms(median_of(row['ours'], 'body_first'))} ms"
        f" (nginx {ms(median_of(row['floor'], 'body_first'))} ms), {len(row['problems'])} problem(s)")
    return row


# ---------------------------------------------------------------- 16 whole streams at once

def stream_all(server, streams, names_key):
    """Each of `streams` read whole by its own thread, all released at once: (wall seconds until the last ends,
    [per stream {"seconds", "size", "ok", "problem"}])."""
    barrier = threading.Barrier(len(streams) + 1)
    results = [None] * len(streams)

    def client(index, stream):
        barrier.wait()
        try:
            answer = http_get(server.port, server.url(stream[names_key]))
        except OSError as error:
            results[index] = {"seconds": None, "size": 0, "ok": False, "problem": f"{stream[names_key]}: {error}"}
            return
        problem = None
        if answer["status"] != 200:
            problem = f"status {answer['status']}"
        elif answer["size"] != stream["size"]:
            problem = f"{answer['size']} bytes, wanted {stream['size']}"
        elif answer["md5"] != stream["md5"]:
            problem = "MD5 differs from the oracle's"
        results[index] = {"seconds": answer["total"], "size": answer["size"], "ok": problem is None,
                          "problem": None if problem is None else f"{stream[names_key]}: {problem}"}

    threads = [threading.Thread(target=client, args=(index, stream)) for index, stream in enumerate(streams)]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    return time.perf_counter() - start, results


def measure_streams(server, streams, names_key):
    """One client streaming the first file whole, then all of them at once; the server's RSS throughout."""
    sampler = RssSampler(server.pid)
    try:
        idle = sampler.current()
        sampler.reset()
        one_wall, one = stream_all(server, streams[:1], names_key)
        rss_one = sampler.peak()
        sampler.reset()
        wall, many = stream_all(server, streams, names_key)
        rss_many = sampler.peak()
    finally:
        sampler.close()
    return {"idle": idle, "one_wall": one_wall, "one": one, "rss_one": rss_one, "wall": wall, "many": many,
            "rss_many": rss_many}


def measure_stream_table(binary, layout, work, floor):
    rows = []
    for kind in (["ours", "nginx"] if floor else ["ours"]):
        row = {"server": kind, "failure": None, "problems": [], "notes": []}
        try:
            if kind == "ours":
                server = start_ours(binary, layout["streams_ours_dir"], work / "run" / "serve")
            else:
                server = start_nginx(layout["streams_floor_dir"], work / "run" / "serve-nginx")
        except (OSError, RuntimeError) as error:
            row["failure"] = str(error)
            rows.append(row)
            continue
        try:
            row.update(measure_streams(server, layout["streams"], "name" if kind == "ours" else "floor_name"))
        finally:
            note = server.stop()
        row["problems"] = [item["problem"] for item in row.get("one", []) + row.get("many", []) if not item["ok"]]
        if note:
            row["notes"].append(f"{CLIENTS} streams, {kind}: {note}")
        log(f"  {kind}: {CLIENTS} streams in {row['wall']:.2f} s, peak RSS {row['rss_many']:.1f} MiB "
            f"(one stream {row['rss_one']:.1f}), {len(row['problems'])} problem(s)")
        rows.append(row)
    return rows


def measure_serve(binary, layout, count, work):
    floor = nginx_binary() is not None
    if not floor:
        log("  nginx is not installed: no static-server floor (apt-get install nginx-light)")
    log(f"== serve: the first request and {count} random 1-second ranges of each "
        f"{minutes_label(layout['minutes'])} reversed input" + (", each then from nginx" if floor else ""))
    ranges = [measure_ranges(binary, entry, count, work, floor) for entry in layout["ranges"]]
    log(f"== serve: {CLIENTS} clients each streaming a different {minutes_label(layout['stream_minutes'])} reversed "
        "WAV whole, at once" + (", then the same from nginx" if floor else ""))
    streams = measure_stream_table(binary, layout, work, floor)
    shutil.rmtree(work / "run" / "serve-nginx", ignore_errors=True)
    return {"ranges": ranges, "streams": streams, "count": count, "floor": floor, "minutes": layout["minutes"],
            "stream_minutes": layout["stream_minutes"],
            "stream_formats": list(dict.fromkeys(stream["format"] for stream in layout["streams"])),
            "stream_bytes": layout["streams"][0]["size"] if layout["streams"] else 0}


# ---------------------------------------------------------------- figures, tables, targets

def ms(seconds):
    return "-" if seconds is None else f"{1000 * seconds:.1f}"


def timings(samples, key):
    return [sample[key] for sample in samples if sample and sample.get(key) is not None]


def median_of(samples, key):
    values = timings(samples, key)
    return statistics.median(values) if values else None


def p95_of(samples, key):
    values = sorted(timings(samples, key))
    return values[math.ceil(0.95 * len(values)) - 1] if values else None


RANGE_HEADERS = ["input", "cold open ms", "TTFB ms", "p95 ms", "total ms", "nginx TTFB ms", "nginx p95 ms",
                 "nginx total ms", "bytes right", "peak RSS"]


def range_legend(result):
    return (f"A {minutes_label(result['minutes'])} input reversed by `reverse-audio serve FOLDER --port 0`: "
            f"`GET /api/files/NAME/audio?direction=reverse` with `Range: bytes=A-B` for {result['count']} random "
            f"1-second ranges ({RANGE_BYTES} bytes, any byte offset) on new connections, one at a time, each "
            "followed by the same range of the same reversal made beforehand by `ffmpeg -af areverse` (an M4A cut "
            "first at its stated end) and served as a static file by nginx (1 worker, sendfile): the floor. "
            "TTFB: milliseconds from connecting to the first body byte, median and 95th percentile; total: median "
            "milliseconds to the last byte; cold open: the file's first request (a random range too: the length "
            "pass and seek index, then the range); bytes right: ranges (and the cold one) equal to the oracle's "
            "bytes at the same offsets, the 44-byte header and the size too; peak RSS: the server's VmHWM, MiB.")


def range_cells(row):
    if row["failure"]:
        return [f"{row['format']} {minutes_label(row['minutes'])}", "failed: " + row["failure"],
                *[""] * (len(RANGE_HEADERS) - 2)]
    cold = row["cold"]
    cold_text = "-" if cold is None else f"{ms(cold['body_first'])}" if cold["ok"] else "WRONG"
    checked = len(row["ours"]) + 1
    right = checked - sum(1 for sample in [row["cold"], *row["ours"]] if sample and not sample["ok"])
    wrong = [what for what, ok in (("header", row["header_ok"]), ("size", row["size_ok"])) if not ok]
    extra = f" ({' and '.join(wrong)} NOT)" if wrong else ""
    floor = row["floor"]
    return [f"{row['format']} {minutes_label(row['minutes'])}",
            cold_text, ms(median_of(row["ours"], "body_first")), ms(p95_of(row["ours"], "body_first")),
            ms(median_of(row["ours"], "total")),
            ms(median_of(floor, "body_first")) if floor else "n/a", ms(p95_of(floor, "body_first")) if floor else "n/a",
            ms(median_of(floor, "total")) if floor else "n/a", f"{right}/{checked}{extra}",
            "-" if row["rss"] is None else f"{row['rss']:.1f}"]


STREAM_HEADERS = ["server", "1 stream s", "1 stream MB/s", f"{CLIENTS} streams s", "MB/s (all)", "slowest s",
                  "bytes right", "RSS idle", "RSS 1 stream", f"RSS {CLIENTS} streams"]


def stream_legend(result):
    return (f"{CLIENTS} clients at once, each reading a different {minutes_label(result['stream_minutes'])} reversed "
            f"WAV whole ({result['stream_bytes'] / 1e6:.1f} MB each) as fast as it can: ours = copies of the "
            f"{'/'.join(result['stream_formats'])} inputs in turn (different files, each opened by the server on its "
            "first request, inside the timed run but for the first), "
            "nginx = the oracle reversals made beforehand (hard links by other names). First one client alone, then "
            f"all {CLIENTS} released together; s: wall seconds until the last ends; MB/s: bytes of all answers over "
            "that (10^6 bytes); bytes right: answers whose size and MD5 equal the oracle's; RSS: the server's VmRSS "
            f"(nginx: master and worker) read every {1000 * SAMPLE_SECONDS:.0f} ms, MiB: after start, peak with one "
            "stream, peak with all. The clients are Python threads on the same cores as the server.")


def stream_cells(row):
    if row["failure"]:
        return [row["server"], "failed: " + row["failure"], *[""] * (len(STREAM_HEADERS) - 2)]
    one, many = row["one"], row["many"]
    slowest = max((item["seconds"] for item in many if item["seconds"] is not None), default=None)
    right = sum(1 for item in one + many if item["ok"])
    return [row["server"], f"{row['one_wall']:.2f}", f"{sum(item['size'] for item in one) / 1e6 / row['one_wall']:.0f}",
            f"{row['wall']:.2f}", f"{sum(item['size'] for item in many) / 1e6 / row['wall']:.0f}",
            "-" if slowest is None else f"{slowest:.2f}", f"{right}/{len(one) + len(many)}", f"{row['idle']:.1f}",
            f"{row['rss_one']:.1f}", f"{row['rss_many']:.1f}"]


def serve_targets(result):
    ranges, streams = result["ranges"], result["streams"]
    medians = [(row["format"], None if row["failure"] else median_of(row["ours"], "body_first")) for row in ranges]
    fast = bool(medians) and all(value is not None and 1000 * value < TTFB_TARGET_MS for _, value in medians)
    problems = [problem for row in ranges for problem in ([row["failure"]] if row["failure"] else row["problems"])]
    ours = next((row for row in streams if row["server"] == "ours"), None)
    if ours is None or ours["failure"]:
        problems.append(f"streams: {ours['failure'] if ours else 'not measured'}")
    else:
        problems += ours["problems"]
    flat = ours is not None and not ours["failure"] and ours["rss_many"] < RSS_LIMIT_MIB
    rss_text = ("failed" if ours is None or ours["failure"] else
                f"{ours['rss_many']:.1f} MiB with {CLIENTS}, {ours['rss_one']:.1f} with one, {ours['idle']:.1f} idle")
    shown = ", ".join(f"{fmt} {ms(value)}" for fmt, value in medians)
    checked = sum(len(row["ours"]) + 1 for row in ranges if not row["failure"])
    return [(pass_or_miss(fast), f"median time to the first byte of a random 1-second range of a "
             f"{minutes_label(result['minutes'])} reversed input under {TTFB_TARGET_MS:g} ms (ms: {shown})"),
            (pass_or_miss(not problems), f"every byte right: {checked} ranges and {CLIENTS + 1} whole streams equal "
             "ffmpeg areverse's bytes" + (f"; NOT: {'; '.join(problems[:6])}" if problems else "")),
            (pass_or_miss(flat), f"memory flat: the server's peak RSS with {CLIENTS} streams under {RSS_LIMIT_MIB} MiB "
             f"({rss_text})")]


def serve_notes(result):
    """What the servers said besides the answers (a stop that was not clean, stderr lines) and any wrong byte
    from nginx (which would mean the oracle is wrong)."""
    notes = [note for row in result["ranges"] + result["streams"] for note in row.get("notes", [])]
    notes += [f"{row['format']} ranges, nginx: {problem}" for row in result["ranges"]
              for problem in row.get("floor_problems", [])]
    notes += [f"{CLIENTS} streams, nginx: {problem}" for row in result["streams"] if row["server"] == "nginx"
              for problem in row.get("problems", [])]
    if not result["floor"]:
        notes.append("nginx is not installed here: no floor was measured")
    return notes


def add_arguments(parser):
    parser.add_argument("--serve-minutes", type=float, default=60,
                        help="length of the serve table's range inputs, in minutes (default 60)")
    parser.add_argument("--serve-ranges", type=int, default=20,
                        help="random 1-second ranges per input in the serve table (default 20)")
    parser.add_argument("--serve-stream-minutes", type=float, default=10,
                        help=f"length of the files the serve table's {CLIENTS} clients stream whole (default 10)")
    parser.add_argument("--serve-page-runs", type=int, default=3,
                        help="runs of each of the serve table's page figures in Chromium (default 3)")
    parser.add_argument("--serve-page-only", action="store_true",
                        help="measure only the serve table's page figures (--write keeps the rest of its section)")


def check_arguments(parser, args):
    for option in ("serve_minutes", "serve_stream_minutes"):
        minutes = getattr(args, option)
        if minutes <= 0:
            parser.error(f"--{option.replace('_', '-')}: must be positive")
        if minutes == int(minutes):
            setattr(args, option, int(minutes))
    if args.serve_ranges < 1:
        parser.error("--serve-ranges: must be at least 1")
    if args.serve_page_runs < 1:
        parser.error("--serve-page-runs: must be at least 1")


def formats_of(args):
    return [fmt for fmt in SERVE_FORMATS if fmt in args.format_list] or SERVE_FORMATS


def prepare(context):
    args = context.args
    if not args.serve_page_only:
        make_layout(context.work, args.serve_minutes, args.serve_stream_minutes, formats_of(args))
    serve_page.make_page_layout(context.work, args.serve_minutes)


def measure(context):
    args = context.args
    page_layout = serve_page.make_page_layout(context.work, args.serve_minutes)
    if args.serve_page_only:
        result = {"page_only": True}
    else:
        layout = make_layout(context.work, args.serve_minutes, args.serve_stream_minutes, formats_of(args))
        result = measure_serve(context.binary, layout, args.serve_ranges, context.work)
        result["verdicts"] = serve_targets(result)
    page = serve_page.measure_page(context.binary, page_layout, args.serve_page_runs, context.work, start_ours)
    return {**result, "page": {**page, "verdicts": serve_page.page_verdicts(page)}}


def show_page(page):
    show_table(f"Serving the page: {minutes_label(page['minutes'])} inputs never opened before, in headless Chromium.",
               serve_page.page_legend(page), text_table(serve_page.page_lines(page), serve_page.PAGE_HEADERS,
                                                         serve_page.page_cells), page["verdicts"])
    for problem in page["problems"]:
        log(f"  note: {problem}")


def show(context, result):
    if result.get("page_only"):
        show_page(result["page"])
        return
    log("")
    log(f"Serving reversed WAVs: random 1-second ranges of {minutes_label(result['minutes'])} inputs "
        f"({result['count']} each).")
    log(range_legend(result).replace("`", ""))
    log(text_table(result["ranges"], RANGE_HEADERS, range_cells))
    show_table(f"Serving reversed WAVs: {CLIENTS} whole streams at once.", stream_legend(result),
               text_table(result["streams"], STREAM_HEADERS, stream_cells), result["verdicts"])
    for note in serve_notes(result):
        log(f"  note: {note}")
    show_page(result["page"])


def written_options(context, result):
    if result is None:
        return None
    return (f"--serve-minutes {context.args.serve_minutes:g} --serve-ranges {context.args.serve_ranges} "
            f"--serve-stream-minutes {context.args.serve_stream_minutes:g} --serve-page-runs "
            f"{context.args.serve_page_runs}")


def serve_raw_lines(result):
    lines = []
    for row in result["ranges"]:
        if row["failure"]:
            lines.append(f"- serve, {row['format']}: failed")
            continue
        ours = " ".join(ms(sample["body_first"]) for sample in row["ours"])
        floor = " ".join(ms(sample["body_first"]) for sample in row["floor"]) or "n/a"
        lines.append(f"- serve, {row['format']} TTFB ms: cold {ms(row['cold']['body_first'])}; ours {ours}; "
                     f"nginx {floor}")
    for row in result["streams"]:
        if not row["failure"]:
            lines.append(f"- serve, {row['server']} stream seconds: " + " ".join(
                "-" if item["seconds"] is None else f"{item['seconds']:.2f}" for item in row["many"]))
    return lines


def page_section(context, page):
    """The page's part of the section: its own heading (###), when, the legend, the table and the goals, the
    problems and the zoom levels' raw times."""
    return [serve_page.HEADING, "", measured_line(context.loads), "", serve_page.page_legend(page), "",
            markdown_table(serve_page.page_lines(page), serve_page.PAGE_HEADERS, serve_page.page_cells), "",
            *verdict_lines(page["verdicts"]), "",
            *([*(f"- note: {problem}" for problem in page["problems"]), ""] if page["problems"] else []),
            "Raw timings of the page, each run: where the first sounds' time went, the list's request, and the zoom "
            "levels (ms from the click to the level's whole data):", "",
            *(serve_page.page_raw_lines(page) or ["- none measured"])]


def without_page(lines):
    """`lines` (a section) up to the page's part, blank lines at the end left out."""
    if serve_page.HEADING in lines:
        lines = lines[:lines.index(serve_page.HEADING)]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def section(context, result):
    if result is None:
        kept = kept_section(HEADING, "run with --tables serve to measure it")
        return kept or [HEADING, "", "Not measured yet (run `scripts/bench --tables serve --write`)."]
    if result.get("page_only"):
        earlier = existing_section(HEADING)
        if earlier and any(line.startswith("Measured ") for line in without_page(earlier)):
            log(f"BENCHMARKS.md: kept the earlier ranges and streams of '{HEADING[3:]}' (--serve-page-only)")
            rest = without_page(earlier)
        else:
            rest = [HEADING, "", "Ranges and streams not measured yet (run `scripts/bench --tables serve --write`)."]
        return [*rest, "", *page_section(context, result["page"])]
    return [HEADING, "", measured_line(context.loads), "", range_legend(result), "",
            markdown_table(result["ranges"], RANGE_HEADERS, range_cells), "", stream_legend(result), "",
            markdown_table(result["streams"], STREAM_HEADERS, stream_cells), "",
            *verdict_lines(result["verdicts"]), "",
            *([*(f"- note: {note}" for note in serve_notes(result)), ""] if serve_notes(result) else []),
            "Raw timings (ms to the first body byte, in request order; stream seconds per client):", "",
            *serve_raw_lines(result), "", *page_section(context, result["page"])]
