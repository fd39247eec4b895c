#!/usr/bin/python3
"""NVML that stops answering must not stop the exporter answering.

A copy of the 8×H100 fixture carries the mock NVML with metrics (tests/mocklibs/
nvml_metrics.cc) as its libnvidia-ml.so.1. While the mock serves values, the exporter reports
them and anygpu_backend_up{vendor="nvidia"} is 1. Then every NVML metric call hangs: every
scrape still answers within a bound, the backend turns 0 and the sample age grows. When NVML
answers again the backend recovers; SIGTERM ends the exporter with status 0 — also while a
call is stuck.

usage: exporter_nvml_hang_test.py ANYGPU FIXTURE_DIR MOCK_NVML_METRICS_SO
"""

import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import (Exporter, check, copy_fixture, fail, get,  # noqa: E402
                             nvml_metric_rows, parse_samples, temp_dir, values, write_atomic)

SCRAPE_BOUND = 0.5  # seconds; the exporter serves a cached page, a hung library costs nothing
LIB_TIMEOUT_MS = 500


def scrape(port):
    t = time.monotonic()
    status, _, body = get(port)
    elapsed = time.monotonic() - t
    check(status == 200, f"scrape status {status}")
    check(elapsed < SCRAPE_BOUND, f"a scrape took {elapsed:.3f} s (bound {SCRAPE_BOUND} s)")
    return parse_samples(body.decode()), elapsed


def wait_until(port, predicate, what, timeout):
    deadline = time.monotonic() + timeout
    worst = 0.0
    while time.monotonic() < deadline:
        samples, elapsed = scrape(port)
        worst = max(worst, elapsed)
        if predicate(samples):
            return samples, worst
        time.sleep(0.1)
    fail(f"{what} within {timeout} s")


def main():
    binary, fixture, mock = sys.argv[1:4]
    work = temp_dir("anygpu-exporter-nvml-")
    root = copy_fixture(fixture, os.path.join(work, "host"))
    libdir = os.path.join(root, "usr/lib/x86_64-linux-gnu")
    os.makedirs(libdir, exist_ok=True)
    shutil.copy(mock, os.path.join(libdir, "libnvidia-ml.so.1"))
    metrics_file = os.path.join(work, "nvml-metrics.txt")
    write_atomic(metrics_file, nvml_metric_rows(10))
    env = dict(os.environ, MOCK_NVML_METRICS_FILE=metrics_file)

    exporter = Exporter(binary, ["--root", root, "--lib-timeout", str(LIB_TIMEOUT_MS)],
                        ["--interval", "1"], env=env)
    try:
        up = lambda s: values(s, "anygpu_backend_up", vendor="nvidia") == [1.0]  # noqa: E731
        samples, _ = wait_until(exporter.port, up, "NVML backend up", 15)
        utils = values(samples, "anygpu_gpu_utilization_ratio", vendor="nvidia")
        check(len(utils) == 8, f"{len(utils)} NVIDIA utilization series")
        check(values(samples, "anygpu_gpu_utilization_ratio", vendor="nvidia", gpu="3") == [0.13],
              "GPU 3 utilization from the mock")

        # NVML hangs.
        write_atomic(metrics_file, "hang\n" + nvml_metric_rows(10))
        t0 = time.monotonic()
        down = lambda s: values(s, "anygpu_backend_up", vendor="nvidia") == [0.0]  # noqa: E731
        samples, worst = wait_until(exporter.port, down, "NVML backend reported down", 15)
        print(f"backend down after {time.monotonic() - t0:.1f} s; slowest scrape meanwhile "
              f"{worst * 1000:.1f} ms")
        age0 = values(samples, "anygpu_sample_age_seconds", vendor="nvidia")
        check(len(age0) == 1, f"sample age series: {age0}")
        time.sleep(2)
        samples, _ = scrape(exporter.port)
        age1 = values(samples, "anygpu_sample_age_seconds", vendor="nvidia")
        check(age1 and age1[0] >= age0[0] + 1.5, f"sample age does not grow: {age0} -> {age1}")
        for _ in range(50):  # every scrape during the hang is quick
            scrape(exporter.port)
        status, body = get(exporter.port, "/healthz")[0::2]
        check(status == 200, "healthz during the hang")

        # NVML answers again, with new values.
        write_atomic(metrics_file, nvml_metric_rows(50))
        fresh = lambda s: (up(s) and values(s, "anygpu_gpu_utilization_ratio",  # noqa: E731
                                          vendor="nvidia", gpu="0") == [0.5])
        wait_until(exporter.port, fresh, "NVML backend recovered", 20)

        # Hang again and stop: shutdown does not wait for the stuck call.
        write_atomic(metrics_file, "hang\n")
        time.sleep(2)
        t = time.monotonic()
        rc = exporter.terminate(timeout=10)
        check(rc == 0, f"exit status after SIGTERM with NVML hung: {rc}")
        print(f"stopped in {time.monotonic() - t:.2f} s with a hung NVML call")
        print("PASS: nvml hang")
    finally:
        write_atomic(metrics_file, "")
        exporter.terminate()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
