#!/usr/bin/python3
"""`anygpu exporter` and `anygpu top` discover the host once and share that inventory.

A copy of the 8×H100 fixture carries the metrics mock NVML (tests/mocklibs/nvml_metrics.cc),
whose nvmlInit appends "nvmlInit_v2 pid N mode M" to MOCK_NVML_INIT_MARKER, M being the
worker's mode. Discovery asks NVML in a `probe` worker, so the number of `probe` lines is the
number of discoveries. The exporter with health and --processes (three consumers of the
inventory: the collector, the health monitor and the process scan) and `top` with its process
pane must each show exactly one, while `sample` and `health` lines show that the marker sees
every other worker too.

usage: probe_once_test.py ANYGPU FIXTURE_DIR MOCK_NVML_METRICS_SO
"""

import collections
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import (Exporter, check, copy_fixture, get, nvml_metric_rows,  # noqa: E402
                             parse_samples, temp_dir, values, write_atomic)


def modes(marker):
    """How many nvmlInit calls each worker mode made so far."""
    if not os.path.exists(marker):
        return collections.Counter()
    with open(marker) as f:
        return collections.Counter(line.split()[-1] for line in f if " mode " in line)


def exporter_probes_once(binary, root, env, marker):
    exporter = Exporter(binary, ["--root", root],
                        ["--interval", "0.2", "--processes", "--health-interval", "1",
                         "--processes-interval", "1"], env=env)
    try:
        deadline = time.monotonic() + 15
        while True:
            status, _, body = get(exporter.port)
            samples = parse_samples(body.decode()) if status == 200 else {}
            ready = (values(samples, "anygpu_gpu_utilization_ratio", vendor="nvidia")
                     and values(samples, "anygpu_processes", vendor="nvidia")
                     and values(samples, "anygpu_gpu_health", vendor="nvidia"))
            if ready or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        check(ready, f"metrics, processes and health series within 15 s:\n{body.decode()}")
        time.sleep(2.5)  # a few health evaluations and process scans, each with its own worker
        seen = modes(marker)
    finally:
        check(exporter.terminate() == 0, "the exporter ends with status 0 on SIGTERM")
    print(f"exporter: nvmlInit by worker mode {dict(seen)}")
    check(seen["sample"] >= 1 and seen["health"] >= 2,
          f"the marker records the sample and health workers: {dict(seen)}")
    check(seen["probe"] == 1, f"the exporter discovered the host {seen['probe']} times, not once")


def top_probes_once(binary, root, env, marker):
    # stdout is a pipe: plain frames; the process pane is on by default.
    r = subprocess.run([binary, "--root", root, "top", "-n", "3", "--interval", "0.2"],
                       env=env, capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"top exit {r.returncode}: {r.stderr}")
    check(r.stdout.count("0000:18:00.0") >= 3, f"three frames of the GPUs:\n{r.stdout}")
    seen = modes(marker)
    print(f"top: nvmlInit by worker mode {dict(seen)}")
    check(seen["sample"] >= 1 and seen["health"] >= 1,
          f"the marker records the sample worker and the pane's library read: {dict(seen)}")
    check(seen["probe"] == 1, f"top discovered the host {seen['probe']} times, not once")


def main():
    binary, fixture, mock = sys.argv[1:4]
    work = temp_dir("anygpu-probe-once-")
    try:
        root = copy_fixture(fixture, os.path.join(work, "host"))
        libdir = os.path.join(root, "usr/lib/x86_64-linux-gnu")
        os.makedirs(libdir, exist_ok=True)
        shutil.copy(mock, os.path.join(libdir, "libnvidia-ml.so.1"))
        metrics_file = os.path.join(work, "nvml-metrics.txt")
        write_atomic(metrics_file, nvml_metric_rows(10))
        for name, run in (("exporter", exporter_probes_once), ("top", top_probes_once)):
            marker = os.path.join(work, f"{name}-init-marker")
            env = dict(os.environ, MOCK_NVML_METRICS_FILE=metrics_file,
                       MOCK_NVML_INIT_MARKER=marker)
            run(binary, root, env, marker)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("PASS: probe once")


if __name__ == "__main__":
    main()
