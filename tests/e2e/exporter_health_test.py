#!/usr/bin/python3
"""The exporter's health series follow the host, and show recovery.

A copy of the 8×H100 fixture gets a kernel log with Xid 79 for GPU 1 (at 4 s of uptime) and
/proc/uptime at 5 s. With --health-window 3s and --health-interval 1: GPU 1 is critical
(anygpu_gpu_health 2) and anygpu_health_findings{code="xid",severity="critical"} is 1, the
others ok. Then uptime moves to 100 s: the record is older than the window, so it is no longer
seen, and within the window the findings series goes and GPU 1 is ok again. `--no-health`
serves none of these families; a bad --health-window is exit 2.

Then the kernel log is made unreadable (mode 000, the exporter run as root without the
capabilities that bypass file modes, as an unprivileged service would be): every GPU is
anygpu_gpu_health 3 (unknown), never 0, anygpu_health_source_up{source="kernel-log"} is 0 and
stderr says so once; once the log is readable again, the Xid shows (2), the source is 1 and
stderr says it recovered, once. `promtool check metrics` accepts the page.

usage: exporter_health_test.py ANYGPU FIXTURE_DIR
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import (Exporter, check, copy_fixture, fail, get, parse_samples,  # noqa: E402
                             require_tool, temp_dir)


def values(samples, name, **labels):
    want = set(labels.items())
    return [v for (n, ls), v in samples.items() if n == name and want <= set(ls)]


def wait_until(port, predicate, what, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, _, body = get(port)
        check(status == 200, f"scrape status {status}")
        samples = parse_samples(body.decode())
        if predicate(samples):
            return samples
        time.sleep(0.2)
    fail(f"{what} within {timeout} s")


def write(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)


def main():
    binary, fixture = sys.argv[1:3]
    work = temp_dir("anygpu-exporter-health-")
    root = copy_fixture(fixture, os.path.join(work, "host"))
    os.makedirs(os.path.join(root, "dev"), exist_ok=True)
    write(os.path.join(root, "dev/kmsg"),
          "3,7,4000000,-;NVRM: Xid (PCI:0000:2a:00): 79, pid=9, GPU has fallen off the bus.\n")
    os.makedirs(os.path.join(root, "proc"), exist_ok=True)
    uptime = os.path.join(root, "proc/uptime")
    write(uptime, "5.00 10.00\n")

    exporter = Exporter(binary, ["--root", root, "--no-libs"],
                        ["--interval", "1", "--health-interval", "1", "--health-window", "3s"])
    try:
        sick = lambda s: values(s, "anygpu_gpu_health", gpu="1") == [2.0]  # noqa: E731
        samples = wait_until(exporter.port, sick, "GPU 1 critical", 10)
        health = values(samples, "anygpu_gpu_health", vendor="nvidia")
        check(len(health) == 8 and sorted(health) == [0.0] * 7 + [2.0], f"health: {health}")
        xid = values(samples, "anygpu_health_findings", code="xid", severity="critical",
                     pci_bus_id="0000:2a:00.0")
        check(xid == [1.0], f"xid findings: {xid}")
        check(values(samples, "anygpu_health_window_seconds") == [3.0], "window series")

        # The record leaves the window: the finding stops counting and GPU 1 recovers.
        write(uptime, "100.00 10.00\n")
        t = time.monotonic()
        well = lambda s: (values(s, "anygpu_gpu_health", gpu="1") == [0.0]  # noqa: E731
                          and not values(s, "anygpu_health_findings", code="xid"))
        wait_until(exporter.port, well, "recovery after the window", 15)
        print(f"recovered {time.monotonic() - t:.1f} s after the record aged out")
        check(exporter.terminate() == 0, "exit status")

        plain = Exporter(binary, ["--root", root, "--no-libs"], ["--no-health"])
        try:
            body = get(plain.port)[2].decode()
            check("anygpu_gpu_health" not in body and "anygpu_health_" not in body,
                  "--no-health still serves health series")
            check("anygpu_gpu_info" in body, "--no-health lost the metrics")
        finally:
            plain.terminate()

        r = subprocess.run([binary, "--root", root, "--no-libs", "exporter", "--listen",
                            "127.0.0.1:0", "--health-window", "soon"], capture_output=True,
                           timeout=30)
        check(r.returncode == 2 and b"--health-window soon" in r.stderr,
              f"bad --health-window: {r.returncode} {r.stderr!r}")
        unreadable_kernel_log(binary, root, uptime)
        print("PASS: exporter health")
    finally:
        exporter.terminate()


def unreadable_kernel_log(binary, root, uptime):
    kmsg = os.path.join(root, "dev/kmsg")
    write(kmsg, "3,7,4000000,-;NVRM: Xid (PCI:0000:2a:00): 79, pid=9, GPU has fallen off the bus.\n")
    write(uptime, "5.00 10.00\n")
    os.chmod(kmsg, 0)
    wrapper = ()
    if os.geteuid() == 0:
        wrapper = ("setpriv", "--bounding-set=-dac_override,-dac_read_search", "--")
    exporter = Exporter(binary, ["--root", root, "--no-libs"],
                        ["--interval", "1", "--health-interval", "1", "--health-window", "60s"],
                        wrapper=wrapper)
    try:
        blind = lambda s: values(s, "anygpu_health_source_up", source="kernel-log") == [0.0]  # noqa: E731,E501
        samples = wait_until(exporter.port, blind, "kernel-log source down", 10)
        health = values(samples, "anygpu_gpu_health", vendor="nvidia")
        check(health == [3.0] * 8, f"unreadable kernel log: health {health}, expected 3 (unknown)")
        check(values(samples, "anygpu_health_source_up", gpu="1", source="pcie") == [1.0],
              "GPU 1's pcie source")
        check(values(samples, "anygpu_health_source_up", gpu="1", source="nvml") == [0.0],
              "GPU 1's nvml source (--no-libs)")
        status, _, body = get(exporter.port)
        r = subprocess.run([require_tool("promtool"), "check", "metrics"], input=body,
                           capture_output=True)
        check(status == 200 and r.returncode == 0,
              f"promtool check metrics: {r.stdout!r} {r.stderr!r}")
        time.sleep(2.5)  # more evaluations: the log line is not repeated
        os.chmod(kmsg, 0o644)
        sick = lambda s: (values(s, "anygpu_gpu_health", gpu="1") == [2.0]  # noqa: E731
                          and values(s, "anygpu_health_source_up", source="kernel-log") == [1.0])
        wait_until(exporter.port, sick, "the Xid once the kernel log is readable", 10)
        time.sleep(2.5)
    finally:
        check(exporter.terminate() == 0, "exit status")
    err = exporter.rest_of_stderr()
    down = [line for line in err.splitlines() if "cannot read kernel-log" in line]
    check(down == ["anygpu exporter: health: cannot read kernel-log: permission-denied "
                   "(/dev/kmsg: Permission denied)"], f"stderr:\n{err}")
    up = [line for line in err.splitlines() if "reading kernel-log again" in line]
    check(up == ["anygpu exporter: health: reading kernel-log again"], f"stderr:\n{err}")
    nvml = [line for line in err.splitlines() if "cannot read nvml" in line]
    check(len(nvml) == 1 and "for 8 device(s)" in nvml[0], f"stderr:\n{err}")


if __name__ == "__main__":
    main()
