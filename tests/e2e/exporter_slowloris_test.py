#!/usr/bin/python3
"""`anygpu exporter` stays fair under slow clients (loopback only, bounded in time).

256 connections trickle header bytes and reopen as soon as they are dropped, held by a separate
process; meanwhile a well-behaved client scrapes /metrics on a fresh connection every 15 ms.
At least 99 % of its scrapes must succeed, each within 100 ms. Twice: the slow connections from
64 other loopback addresses (many pods on a node), then from the scraper's own address (where
only eviction of the longest-waiting head can help, not the per-peer cap).

usage: exporter_slowloris_test.py ANYGPU FIXTURE_DIR
"""
import json
import os
import selectors
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import Exporter, check  # noqa: E402

SLOW = 256
SCRAPES = 200
INTERVAL = 0.015
LIMIT = 0.100
TRICKLE = 0.1  # one byte per connection this often


def attack(port, n, seconds, sources):
    """Keeps `n` trickling connections open until `seconds` pass; prints its counts."""
    sel = selectors.DefaultSelector()
    slots = [None] * n
    stats = {"opened": 0, "dropped": 0, "samples": [], "failed_connects": 0}

    def open_slot(i, now):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind((sources[i % len(sources)], 0))
            s.settimeout(1)
            s.connect(("127.0.0.1", port))
            s.setblocking(False)
            s.send(b"GET /metrics HTTP/1.1\r\nHost: slow\r\nX-Trickle: ")
        except OSError:
            s.close()
            stats["failed_connects"] += 1
            slots[i] = None
            return
        stats["opened"] += 1
        slots[i] = [s, now + TRICKLE * (i / n)]
        sel.register(s, selectors.EVENT_READ, i)

    def drop(i):
        s = slots[i][0]
        sel.unregister(s)
        s.close()
        slots[i] = None
        stats["dropped"] += 1

    now = time.monotonic()
    for i in range(n):
        open_slot(i, now)
    print("ready", flush=True)
    end = now + seconds
    while time.monotonic() < end:
        for key, _ in sel.select(timeout=0.005):
            try:
                data = key.fileobj.recv(4096)  # a 503, a 408 or a close: dropped
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if slots[key.data] is not None and (not data or b"HTTP/1.1" in data):
                drop(key.data)
        now = time.monotonic()
        for i, slot in enumerate(slots):
            if slot is None:
                open_slot(i, now)
            elif slot[1] <= now:
                try:
                    slot[0].send(b"a")
                except (BlockingIOError, OSError):
                    drop(i)
                    open_slot(i, now)
                    continue
                slot[1] = now + TRICKLE
        stats["samples"].append(sum(1 for s in slots if s is not None))
    samples = stats.pop("samples")
    stats["open_min"] = min(samples)
    stats["open_mean"] = sum(samples) / len(samples)
    print(json.dumps(stats), flush=True)


def scrape(port):
    t0 = time.monotonic()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=1)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: prometheus\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
    except OSError:
        return False, time.monotonic() - t0
    elapsed = time.monotonic() - t0
    ok = data.startswith(b"HTTP/1.1 200 ") and b"anygpu_gpu_info{" in data
    return ok, elapsed


def scenario(port, name, sources):
    seconds = SCRAPES * INTERVAL + 3
    attacker = subprocess.Popen(
        [sys.executable, __file__, "--attack", str(port), str(SLOW), str(seconds),
         ",".join(sources)], stdout=subprocess.PIPE, text=True)
    try:
        check(attacker.stdout.readline().strip() == "ready", f"{name}: attacker did not start")
        time.sleep(0.5)  # the server is full of slow connections, and they keep coming back
        good, times = 0, []
        next_at = time.monotonic()
        for _ in range(SCRAPES):
            ok, elapsed = scrape(port)
            times.append(elapsed)
            good += ok and elapsed <= LIMIT
            next_at += INTERVAL
            time.sleep(max(0, next_at - time.monotonic()))
        stats = json.loads(attacker.stdout.readline())
    finally:
        attacker.kill()
        attacker.wait()
    times.sort()
    print(f"{name}: {good}/{SCRAPES} scrapes within {LIMIT * 1000:.0f} ms; p50 "
          f"{times[len(times) // 2] * 1000:.1f} ms, p99 {times[int(len(times) * .99)] * 1000:.1f}"
          f" ms, max {times[-1] * 1000:.1f} ms; slow clients: {stats}")
    check(stats["open_min"] >= SLOW * 0.9,
          f"{name}: the slow clients held too few connections ({stats})")
    check(stats["dropped"] > 0, f"{name}: no slow connection was ever dropped ({stats})")
    check(good >= SCRAPES * 0.99, f"{name}: only {good}/{SCRAPES} scrapes succeeded in time")


def main():
    if sys.argv[1] == "--attack":
        port, n, seconds, sources = sys.argv[2:6]
        attack(int(port), int(n), float(seconds), sources.split(","))
        return
    binary, fixture = sys.argv[1:3]
    exporter = Exporter(binary, ["--root", fixture, "--no-libs"])
    try:
        others = [f"127.0.0.{2 + i}" for i in range(64)]
        scenario(exporter.port, "slow clients on 64 other addresses", others)
        scenario(exporter.port, "slow clients on the scraper's address", ["127.0.0.1"])
        check(exporter.proc.poll() is None, "the exporter died")
    finally:
        exporter.proc.terminate()
        exporter.proc.wait(10)
    print("PASS: slowloris")


if __name__ == "__main__":
    main()
