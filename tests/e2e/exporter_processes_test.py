#!/usr/bin/python3
"""`anygpu exporter --processes` serves the processes of a fixture /proc, per pod and job.

A copy of the 8×MI300X fixture gets a /proc: two processes of one Kubernetes pod on GPU 0
(amdgpu fdinfo with 1 MiB and 2 MiB resident VRAM), a Slurm job's process on GPU 1 (4 MiB), an
unattributed holder of GPU 0 without DRM statistics and a shell holding nothing. The pod's
two processes are one anygpu_process_memory_bytes series of 3 MiB; anygpu_processes counts
3 on GPU 0, 1 on GPU 1, 0 elsewhere; no series names a pid. A new holder appears in the
series within the scan interval (the scan runs in the background, not per scrape), and
without --processes none of these families is served.

usage: exporter_processes_test.py ANYGPU FIXTURE_DIR
"""

import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import Exporter, check, copy_fixture, fail, get, parse_samples, temp_dir  # noqa: E402,E501
from proc_fixture import add_process, drm_fdinfo  # noqa: E402

POD = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
POD_CGROUP = ("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
              + POD.replace("-", "_") + ".slice/cri-containerd-" + "ab" * 32 + ".scope\n")
JOB_CGROUP = "0::/system.slice/slurmstepd.scope/job_77/step_0/user/task_0\n"


def fdinfo(pdev, client, kib):
    return drm_fdinfo(pdev, client, kib, engine_ns=10)


def values(samples, name, **labels):
    want = set(labels.items())
    return sorted(v for (n, ls), v in samples.items() if n == name and want <= set(ls))


def main():
    binary, fixture = sys.argv[1:3]
    work = temp_dir("anygpu-exporter-processes-")
    root = copy_fixture(fixture, os.path.join(work, "host"))
    inv = json.loads(subprocess.run([binary, "--root", root, "--no-libs", "detect", "--json"],
                                    check=True, capture_output=True).stdout)
    gpu = [(d["pci"]["bus_id"], d["render_node"]) for d in inv["devices"][:2]]
    (bus0, render0), (bus1, render1) = gpu
    add_process(root, 100, "python3", POD_CGROUP, {0: ("/dev/null", None),
                                                   4: (render0, fdinfo(bus0, 1, 1024))})
    add_process(root, 101, "python3", POD_CGROUP, {4: (render0, fdinfo(bus0, 2, 2048))})
    add_process(root, 200, "train", JOB_CGROUP, {5: (render1, fdinfo(bus1, 3, 4096))})
    add_process(root, 300, "monitor", "0::/\n", {3: (render0, None)})
    add_process(root, 400, "bash", "0::/\n", {0: ("/dev/pts/0", None)})

    exporter = Exporter(binary, ["--root", root, "--no-libs"],
                        ["--no-health", "--processes", "--processes-interval", "1"])
    try:
        status, _, body = get(exporter.port)
        check(status == 200, f"scrape status {status}")
        text = body.decode()
        samples = parse_samples(text)
        check(values(samples, "anygpu_processes", pci_bus_id=bus0) == [3.0],
              f"GPU 0 holders: {values(samples, 'anygpu_processes', pci_bus_id=bus0)}")
        check(values(samples, "anygpu_processes", pci_bus_id=bus1) == [1.0], "GPU 1 holders")
        counts = values(samples, "anygpu_processes")
        check(len(counts) == 8 and sum(counts) == 4.0, f"every device counted: {counts}")
        pod = values(samples, "anygpu_process_memory_bytes", pci_bus_id=bus0, pod_uid=POD,
                     container_id="ab" * 32)
        check(pod == [3.0 * 1024 * 1024], f"pod memory: {pod}")
        job = values(samples, "anygpu_process_memory_bytes", pci_bus_id=bus1, slurm_job="77")
        check(job == [4.0 * 1024 * 1024], f"job memory: {job}")
        check(len(values(samples, "anygpu_process_memory_bytes")) == 2,
              "one series per attribution, none for the holder without statistics")
        check(not re.search(r'[{,]pid="', text), "no per-pid labels")
        check(values(samples, "anygpu_processes_hidden") == [0.0], "hidden")

        # A new holder shows within the scan interval, scraped or not.
        add_process(root, 500, "late", JOB_CGROUP, {6: (render1, fdinfo(bus1, 9, 1024))})
        deadline = time.monotonic() + 10
        while True:
            samples = parse_samples(get(exporter.port)[2].decode())
            if values(samples, "anygpu_processes", pci_bus_id=bus1) == [2.0]:
                break
            if time.monotonic() > deadline:
                fail("the new holder did not show within 10 s")
            time.sleep(0.2)
        job = values(samples, "anygpu_process_memory_bytes", pci_bus_id=bus1, slurm_job="77")
        check(job == [5.0 * 1024 * 1024], f"job memory after the new holder: {job}")
        check(exporter.terminate() == 0, "exit status")
        # No kubelet socket in the fixture: the pod keeps its uid, and the failure is logged
        # once, not on every scan (at least two ran above).
        log = exporter.stderr + exporter.proc.stderr.read().decode(errors="replace")
        check(log.count("pod-resources List") == 1, f"one pod-resources warning: {log}")
        check(all(k != "pod" for (n, ls) in samples for k, _ in ls),
              "no pod name label without the kubelet")

        plain = Exporter(binary, ["--root", root, "--no-libs"], ["--no-health"])
        try:
            body = get(plain.port)[2].decode()
            check("anygpu_process" not in body, "no process series without --processes")
        finally:
            plain.terminate()
    finally:
        exporter.terminate()
    print("ok")


if __name__ == "__main__":
    main()
