#!/usr/bin/python3
"""NVML that crashes in the middle of a sample must not take the exporter down.

A copy of the 8×H100 fixture carries the mock NVML with metrics (tests/mocklibs/
nvml_metrics.cc) as its libnvidia-ml.so.1, told to dereference NULL in the second
nvmlDeviceGetUtilizationRates call of every process, after nvmlInit succeeded. The sampler's
library runs in a long-lived worker: the exporter keeps answering every scrape quickly,
anygpu_backend_up{vendor="nvidia"} is 0, anygpu_backend_crashes_total grows as the worker is
restarted with exponential backoff (not once per interval), and the exporter never holds more
than one worker. When the library heals the backend comes back; when the host tree the
exporter reads disappears the backend goes down and its samples age; SIGTERM ends the
exporter with status 0 and no worker outlives it.

usage: exporter_nvml_crash_test.py ANYGPU FIXTURE_DIR MOCK_NVML_METRICS_SO
"""

import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import (Exporter, check, copy_fixture, fail, get,  # noqa: E402
                             nvml_metric_rows, parse_samples, temp_dir, values, write_atomic)

SCRAPE_BOUND = 0.5  # seconds: sampling is asynchronous, a scrape copies a rendered page
LIB_TIMEOUT_MS = 2000  # crashes end a call at once; the deadline is the hang test's subject


def scrape(port):
    t = time.monotonic()
    status, _, body = get(port)
    elapsed = time.monotonic() - t
    check(status == 200, f"scrape status {status}")
    check(elapsed < SCRAPE_BOUND, f"a scrape took {elapsed:.3f} s (bound {SCRAPE_BOUND} s)")
    return parse_samples(body.decode())


def children(pid):
    out = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:  # the collector's call threads come and go
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += f.read().split()
        except OSError:
            pass
    return out


def workers_of(pid):
    """Processes anywhere whose command line is `… __worker sample PID`."""
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if b"__worker" in argv and str(pid).encode() in argv:
            found.append(p)
    return found


def wait_until(port, predicate, what, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        samples = scrape(port)
        if predicate(samples):
            return samples
        time.sleep(0.1)
    fail(f"{what} within {timeout} s")


def main():
    binary, fixture, mock = sys.argv[1:4]
    work = temp_dir("anygpu-exporter-crash-")
    root = copy_fixture(fixture, os.path.join(work, "host"))
    libdir = os.path.join(root, "usr/lib/x86_64-linux-gnu")
    os.makedirs(libdir, exist_ok=True)
    shutil.copy(mock, os.path.join(libdir, "libnvidia-ml.so.1"))
    metrics_file = os.path.join(work, "nvml-metrics.txt")
    write_atomic(metrics_file, "segv 2\n" + nvml_metric_rows(10))
    env = dict(os.environ, MOCK_NVML_METRICS_FILE=metrics_file)

    exporter = Exporter(binary, ["--root", root, "--lib-timeout", str(LIB_TIMEOUT_MS)],
                        ["--interval", "0.2", "--no-health"], env=env)
    try:
        nv = dict(vendor="nvidia", source="nvml")
        crashes = lambda s: values(s, "anygpu_backend_crashes_total", **nv)  # noqa: E731
        samples = wait_until(exporter.port, lambda s: crashes(s) and crashes(s)[0] >= 1,
                             "a crash counted", 10)
        check(values(samples, "anygpu_backend_up", **nv) == [0.0], "backend down after a crash")
        check(len(values(samples, "anygpu_gpu_info", vendor="nvidia")) == 8,
              "every GPU still listed")

        # 8 s of scrapes: every one answers; the count grows by backoff (1 s, 2 s, 4 s …), not
        # once per 0.2 s interval; never more than one worker.
        changes, last, most = [], crashes(samples)[0], 0
        t0 = time.monotonic()
        while time.monotonic() - t0 < 8:
            samples = scrape(exporter.port)
            now = crashes(samples)[0]
            check(now >= last, f"crash counter went back: {last} -> {now}")
            if now > last:
                changes.append(time.monotonic())
            last = now
            check(values(samples, "anygpu_backend_up", **nv) == [0.0], "backend up while crashing")
            most = max(most, len(children(exporter.pid)))
            time.sleep(0.05)
        print(f"crashes counted: {last} (increments at "
              f"{[round(t - t0, 1) for t in changes]} s); most children at once: {most}")
        check(2 <= len(changes) <= 4, f"{len(changes)} restarts in 8 s: expected backoff, "
              "not one per interval")
        gaps = [b - a for a, b in zip(changes, changes[1:])]
        check(all(g2 > g1 * 1.4 for g1, g2 in zip(gaps, gaps[1:])), f"gaps do not grow: {gaps}")
        check(most <= 1, f"{most} children at once")

        # The library heals: the next restart samples and the backend is up.
        write_atomic(metrics_file, nvml_metric_rows(50))
        up = lambda s: values(s, "anygpu_backend_up", **nv) == [1.0]  # noqa: E731
        samples = wait_until(exporter.port, up, "backend back up", 20)
        check(values(samples, "anygpu_gpu_utilization_ratio", vendor="nvidia", gpu="0") == [0.5],
              "fresh values after the restart")

        # The host tree disappears: down, and the sample ages instead of being fresh.
        shutil.rmtree(root)
        samples = wait_until(exporter.port, lambda s: not up(s), "backend down without a host",
                             5)
        age0 = values(samples, "anygpu_sample_age_seconds", **nv)
        time.sleep(1.5)
        age1 = values(scrape(exporter.port), "anygpu_sample_age_seconds", **nv)
        check(age0 and age1 and age1[0] >= age0[0] + 1, f"sample age does not grow: {age0} {age1}")

        pid = exporter.pid
        rc = exporter.terminate(timeout=10)
        check(rc == 0, f"exit status after SIGTERM: {rc}")
        time.sleep(0.5)
        check(not workers_of(pid), f"workers outlived the exporter: {workers_of(pid)}")
        print("PASS: nvml crash")
    finally:
        exporter.terminate()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
