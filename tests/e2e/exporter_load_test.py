#!/usr/bin/python3
"""10,000 scrapes of /metrics at concurrency 16 (kept-alive connections, and a new connection
for every tenth scrape): zero errors, every body complete, and the exporter's resident memory
flat — VmRSS after the whole run within 1 MiB of VmRSS after the first 1,000 scrapes.

usage: exporter_load_test.py ANYGPU FIXTURE_DIR
"""

import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import Exporter, check, connect, read_response  # noqa: E402

TOTAL = 10_000
CONCURRENCY = 16
WARMUP = 1_000
RSS_SLACK_KIB = 1024

REQUEST = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: anygpu-load\r\n\r\n"


def main():
    binary, fixture = sys.argv[1:3]
    # One peer opening 16 connections (and reconnecting) is over the default per-peer share
    # (a quarter of --max-connections 64); this test measures throughput, not fairness, so it
    # gives the exporter room for that peer.
    exporter = Exporter(binary, ["--root", fixture, "--no-libs"],
                        ["--interval", "1", "--max-connections", "128"])
    lock = threading.Lock()
    state = {"next": 0, "done": 0, "errors": [], "rss_warm": None, "lengths": set()}

    def take():
        with lock:
            if state["next"] >= TOTAL:
                return None
            state["next"] += 1
            return state["next"]

    def worker():
        sock = None
        while (n := take()) is not None:
            try:
                if sock is None or n % 10 == 0:
                    if sock:
                        sock.close()
                    sock = connect(exporter.port)
                sock.sendall(REQUEST)
                status, fields, body = read_response(sock)
                ok = (status == 200 and len(body) == int(fields.get("content-length", -1)) and
                      b"anygpu_gpu_utilization_ratio{" in body and body.endswith(b"\n"))
                if not ok:
                    raise RuntimeError(f"status {status}, {len(body)} bytes")
                if fields.get("connection") == "close":
                    sock.close()
                    sock = None
            except Exception as e:  # noqa: BLE001 - every failure counts as an error
                with lock:
                    state["errors"].append(f"scrape {n}: {e!r}")
                if sock:
                    sock.close()
                sock = None
                continue
            with lock:
                state["done"] += 1
                state["lengths"].add(len(body))
                if state["done"] == WARMUP:
                    state["rss_warm"] = exporter.rss_kib()
        if sock:
            sock.close()

    cpu0 = exporter.cpu_seconds()
    threads = [threading.Thread(target=worker) for _ in range(CONCURRENCY)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rss_end = exporter.rss_kib()
    cpu = exporter.cpu_seconds() - cpu0
    rc = exporter.terminate()

    print(f"scrapes: {state['done']} ok, {len(state['errors'])} errors; "
          f"VmRSS after {WARMUP}: {state['rss_warm']} KiB, at the end: {rss_end} KiB; "
          f"exporter CPU {cpu:.2f} s ({cpu / TOTAL * 1e6:.0f} µs per scrape)")
    check(not state["errors"], "errors:\n" + "\n".join(state["errors"][:20]))
    check(state["done"] == TOTAL, f"{state['done']} of {TOTAL} scrapes completed")
    check(state["rss_warm"] is not None, "no RSS reading after the warm-up")
    check(abs(rss_end - state["rss_warm"]) <= RSS_SLACK_KIB,
          f"resident memory moved {rss_end - state['rss_warm']} KiB (limit {RSS_SLACK_KIB})")
    check(rc == 0, f"exit status after SIGTERM: {rc}")
    print("PASS: load")


if __name__ == "__main__":
    main()
