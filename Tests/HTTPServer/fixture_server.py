#!/usr/bin/env python3
"""A loopback HTTP server for the URL-input tests: serves the files of ROOT under paths that
choose how it behaves, and counts the bytes it sends.

usage: fixture_server.py ROOT PORTFILE   (writes the port it listens on into PORTFILE)

  /range/NAME       Range requests answered (206, Content-Range, Accept-Ranges): a seekable source
  /norange/NAME     always 200 with the whole file and no Accept-Ranges: a source that cannot seek
  /redirect/NAME    302 to /range/NAME
  /away/HOST:PORT/NAME      302 to http://HOST:PORT/range/NAME (another server)
  /playlist/HOST:PORT/NAME  an HLS playlist whose one segment is http://HOST:PORT/range/NAME
  /loop/NAME        302 to itself, for ever
  /slow/NAME        sends 4 KiB, then nothing (the connection stays open)
  /cut/NAME         answers ranges, but sends only half of each answer's stated length, then closes
  /long/NAME        answers ranges, but states the file 1 MiB longer than it is (Content-Length and
                    Content-Range), and closes after its real end
  /missing/NAME     404
  /stats            {"bytes": N, "requests": N} sent since the start, or since the last /stats?reset=1
"""

import json
import os
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit, parse_qs

ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.getcwd()
LOCK = threading.Lock()
STATS = {"bytes": 0, "requests": 0}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        # A small send buffer, so that what /stats counts as sent is close to what the client
        # read before it closed (a client that seeks drops a long answer after a little of it).
        self.request.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
        super().setup()

    def count(self, sent):
        with LOCK:
            STATS["bytes"] += sent

    def send_body(self, data):
        """Sends `data`; False once the client has gone."""
        try:
            self.wfile.write(data)
            self.count(len(data))
            return True
        except (BrokenPipeError, ConnectionResetError):
            return False

    def do_HEAD(self):
        self.handle_request(head=True)

    def do_GET(self):
        self.handle_request(head=False)

    def handle_request(self, head):
        with LOCK:
            STATS["requests"] += 1
        parts = urlsplit(self.path)
        if parts.path == "/stats":
            body = json.dumps(STATS).encode()
            if parse_qs(parts.query).get("reset"):
                with LOCK:
                    STATS["bytes"] = 0
                    STATS["requests"] = 0
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        elsewhere = re.match(r"^/(away|playlist)/([^/]+)/(.+)$", parts.path)
        if elsewhere:
            mode, target = elsewhere.group(1), f"http://{elsewhere.group(2)}/range/{elsewhere.group(3)}"
            if mode == "away":
                self.send_response(302)
                self.send_header("Location", target)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = f"#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\n{target}\n#EXT-X-ENDLIST\n".encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.apple.mpegurl")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.send_body(body)
            return
        match = re.match(r"^/(range|norange|redirect|loop|slow|cut|long|missing)/(.+)$", parts.path)
        if not match:
            return self.fail(404)
        mode, name = match.group(1), unquote(match.group(2))
        path = os.path.realpath(os.path.join(ROOT, name))
        if mode == "missing" or not path.startswith(ROOT + os.sep) or not os.path.isfile(path):
            return self.fail(404)
        if mode in ("redirect", "loop"):
            self.send_response(302)
            self.send_header("Location", f"/range/{match.group(2)}" if mode == "redirect" else parts.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        size = os.path.getsize(path)

        def send_file(first, count):
            # Read as sent, a megabyte at a time, until the client goes: a test may serve a file
            # of hundreds of megabytes and read only a little of it.
            with open(path, "rb") as file:
                file.seek(first)
                while count > 0 and self.send_body(file.read(min(count, 64 * 1024))):
                    count -= 64 * 1024

        # What the server says the size is: a lie of 1 MiB more in /long/.
        stated = size + (1 << 20) if mode == "long" else size
        if mode in ("range", "cut", "long"):
            wanted = re.match(r"^bytes=(\d*)-(\d*)$", self.headers.get("Range", ""))
            if wanted and (wanted.group(1) or wanted.group(2)):
                if wanted.group(1):
                    first = int(wanted.group(1))
                    last = min(int(wanted.group(2)), stated - 1) if wanted.group(2) else stated - 1
                else:
                    first, last = max(0, stated - int(wanted.group(2))), stated - 1
                if first >= stated:
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{stated}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {first}-{last}/{stated}")
                self.send_header("Accept-Ranges", "bytes")
                self.send_header("Content-Length", str(last - first + 1))
                self.end_headers()
                if not head:
                    count = min(last, size - 1) - first + 1
                    send_file(first, count // 2 if mode == "cut" else count)
                    if mode in ("cut", "long"):
                        self.close_connection = True
                return
        self.send_response(200)
        if mode in ("range", "cut", "long"):
            self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(stated))
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        if head:
            return
        if mode == "slow":
            send_file(0, 4096)
            self.wfile.flush()
            time.sleep(3600)
        elif mode == "cut":
            send_file(0, size // 2)
            self.close_connection = True
        else:
            send_file(0, size)
            if mode == "long":
                self.close_connection = True

    def fail(self, status):
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if len(sys.argv) > 2:
        with open(sys.argv[2] + ".tmp", "w") as file:
            file.write(str(server.server_address[1]))
        os.rename(sys.argv[2] + ".tmp", sys.argv[2])
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
