#!/usr/bin/python3
"""Hostile and broken clients against `anygpu exporter`, and its command-line contract.

Malformed heads get 400, oversized 431/414, slow ones 408 (or a close) within the 5 s header
deadline, a newcomer beyond --max-connections is served at once (the longest-waiting head
gives way), bodies and wrong methods are answered correctly — and after each of these the exporter still serves /metrics. Bad
--listen values exit 2, a taken port exits 3, SIGTERM and SIGINT exit 0.

usage: exporter_faults_test.py ANYGPU FIXTURE_DIR
"""

import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import (Exporter, check, closed_within, connect, get, read_response,  # noqa: E402
                             request)

HEADER_TIMEOUT = 5.0
MAX_CONNECTIONS = 8


def still_serving(port, after):
    status, _, body = get(port)
    check(status == 200 and b"anygpu_gpu_info{" in body, f"/metrics after {after}: {status}")


def test_routes(port):
    status, fields, body = get(port, "/healthz")
    check((status, body) == (200, b"ok\n"), f"/healthz: {status} {body!r}")
    status, fields, body = get(port, "/metrics", "HEAD")
    check(status == 200 and int(fields["content-length"]) > 1000 and body == b"",
          f"HEAD /metrics: {status} {fields}")
    check(get(port, "/nope")[0] == 404, "unknown path is not 404")
    status, fields, _ = get(port, "/metrics", "DELETE")
    check(status == 405 and fields.get("allow") == "GET, HEAD", f"DELETE: {status} {fields}")
    # A body is answered, and the connection closed: the body is never read as a request.
    status, fields, _ = request(port, b"POST /metrics HTTP/1.1\r\nHost: h\r\nContent-Length: 40"
                                      b"\r\n\r\nGET /metrics HTTP/1.1\r\nHost: h\r\n\r\n")
    check(status == 405 and fields.get("connection") == "close", f"POST with body: {status}")


def test_malformed(port):
    cases = {
        b"GARBAGE\r\n\r\n": 400,
        b"GET /metrics HTTP/1.1\r\n\r\n": 400,  # no Host
        b"GET /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n": 400,
        b"GET /metrics HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n"
        b"Content-Length: 3\r\n\r\n": 400,
        b"GET /metrics HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n": 400,
        b"GET /metrics HTTP/1.1\r\nHost: a\x00b\r\n\r\n": 400,
        b"GET /metrics HTTP/9.9\r\nHost: a\r\n\r\n": 505,
        b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\r\n\r\n": 400,  # TLS to a plain port
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n": 505,
        b"GET /" + b"a" * 10000 + b" HTTP/1.1\r\n": 414,
        b"GET /metrics HTTP/1.1\r\nHost: a\r\nX: " + b"a" * 20000 + b"\r\n\r\n": 431,
        b"GET /metrics HTTP/1.1\r\nHost: a\r\n" + b"X: y\r\n" * 200 + b"\r\n": 431,
    }
    for raw, want in cases.items():
        status, fields, _ = request(port, raw)
        check(status == want, f"{raw[:60]!r}: status {status}, expected {want}")
        check(fields.get("connection") == "close", f"{raw[:60]!r}: connection kept open")
    still_serving(port, "malformed requests")


def test_slow_clients(port):
    t0 = time.monotonic()
    slow = connect(port, timeout=HEADER_TIMEOUT + 5)
    silent = connect(port, timeout=HEADER_TIMEOUT + 5)
    slow.sendall(b"GET /metrics HTTP/1.1\r\nHost: a\r\n")
    # Slowloris: a byte every second does not extend the deadline.
    for _ in range(3):
        time.sleep(1)
        slow.sendall(b"X")
    status, _, _ = read_response(slow)
    elapsed = time.monotonic() - t0
    check(status == 408, f"slow head: status {status}")
    check(HEADER_TIMEOUT - 0.5 <= elapsed <= HEADER_TIMEOUT + 2,
          f"slow head cut after {elapsed:.1f} s, expected ~{HEADER_TIMEOUT} s")
    check(closed_within(silent, 2), "a silent connection was not closed by the deadline")
    slow.close()
    silent.close()
    still_serving(port, "slow clients")


def test_answered_give_way(port):
    """Connections already answered never cost a client its next request: ones whose close the
    server has not seen yet (here: never sent) give way before anything is refused."""
    answered = []
    for _ in range(MAX_CONNECTIONS):
        s = connect(port)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        status, _, _ = read_response(s)
        check(status == 200, f"an answered connection: status {status}")
        answered.append(s)
    for i in range(3):
        status, _, _ = get(port)
        check(status == 200, f"request {i} beside {len(answered)} answered connections: {status}")
    for s in answered:
        s.close()


def test_connection_cap(port):
    """At the cap a newcomer is served at once: the head that has waited longest gives way."""
    held = []
    for i in range(MAX_CONNECTIONS):  # heads in progress, one per peer (127.0.0.0/8 is local)
        s = socket.create_connection(("127.0.0.1", port), timeout=10,
                                     source_address=(f"127.0.0.{2 + i}", 0))
        s.sendall(b"GET /metrics HTTP/1.1\r\n")
        held.append(s)
        time.sleep(0.02)
    time.sleep(0.3)
    t0 = time.monotonic()
    extra = connect(port)
    extra.sendall(b"GET /metrics HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
    status, _, _ = read_response(extra)
    elapsed = time.monotonic() - t0
    check(status == 200, f"a newcomer at the cap: status {status}")
    check(elapsed < 1, f"a newcomer at the cap waited {elapsed:.2f} s")
    check(closed_within(held[0], 1), "the longest-waiting head did not give way")
    for s in held[1:]:
        s.sendall(b"Host: a\r\nConnection: close\r\n\r\n")
        status, _, _ = read_response(s)
        check(status == 200, f"a younger held connection: status {status}")
    extra.close()
    for s in held:
        s.close()
    time.sleep(0.3)
    still_serving(port, "the connection cap")


def test_cli(binary, fixture):
    for bad in ("9400", ":9400", "127.0.0.1:99999", "[::1]9400", "example.com:80", "1.2.3.4.5:1"):
        r = subprocess.run([binary, "--root", fixture, "--no-libs", "exporter", "--listen", bad],
                           capture_output=True, text=True, timeout=30)
        check(r.returncode == 2, f"--listen {bad}: exit {r.returncode}")
        check("--listen" in r.stderr, f"--listen {bad}: message {r.stderr!r}")
    r = subprocess.run([binary, "exporter", "--interval", "0"], capture_output=True, timeout=30)
    check(r.returncode == 2, f"--interval 0: exit {r.returncode}")
    first = Exporter(binary, ["--root", fixture, "--no-libs"])
    try:
        r = subprocess.run([binary, "--root", fixture, "--no-libs", "exporter", "--listen",
                            f"127.0.0.1:{first.port}"], capture_output=True, text=True,
                           timeout=30)
        check(r.returncode == 3, f"taken port: exit {r.returncode} {r.stderr}")
        check(f"127.0.0.1:{first.port}" in r.stderr, f"taken port: message {r.stderr!r}")
    finally:
        check(first.terminate() == 0, "SIGTERM exit status")
    second = Exporter(binary, ["--root", fixture, "--no-libs"])
    second.proc.send_signal(2)  # SIGINT
    check(second.proc.wait(10) == 0, "SIGINT exit status")


def main():
    binary, fixture = sys.argv[1:3]
    exporter = Exporter(binary, ["--root", fixture, "--no-libs"],
                        ["--max-connections", str(MAX_CONNECTIONS)])
    try:
        still_serving(exporter.port, "start")
        test_routes(exporter.port)
        test_answered_give_way(exporter.port)
        test_malformed(exporter.port)
        test_connection_cap(exporter.port)
        test_slow_clients(exporter.port)
        check(exporter.proc.poll() is None, "the exporter died")
        check(exporter.terminate() == 0, "exit status after SIGTERM")
    finally:
        exporter.terminate()
    test_cli(binary, fixture)
    print("PASS: faults")


if __name__ == "__main__":
    main()
