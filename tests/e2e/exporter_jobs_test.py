#!/usr/bin/python3
"""`anygpu exporter --processes` accounts each job's busy time, energy and memory per device.

A copy of the 8×MI300X fixture gets an energy counter on GPU 0 (hwmon energy1_input) and a
/proc: a Slurm job's process (job 77, SLURM_JOB_GPUS=0,1 in its environment) and a pod's
process both on GPU 0 with amdgpu DRM engine counters, and a holder outside any job without
counters. The test advances the engine counters (the job three times as fast as the pod) and
the energy counter between scans, then checks through the running exporter that:
- the jobs' joules sum to the device counter's growth over the window within 5 %, split about
  3:1 by engine time;
- busy seconds follow the engine counters' growth;
- GPU 1, in job 77's allocation and held by none of its processes, is
  anygpu_gpu_allocated_idle 1, and GPU 0 is not;
- the holder outside any job has no job series, and with --max-job-series 1 the refused entry
  is counted in anygpu_job_series_dropped_total{reason="cap"};
- the journal the exporter leaves (flushed when it stops) gives `anygpu report` the same
  joules, busy seconds and peak memory, GPU 1 never held, and the one-line --epilog summary.

usage: exporter_jobs_test.py ANYGPU FIXTURE_DIR
"""

import glob
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import (Exporter, check, copy_fixture, fail, get, parse_samples,  # noqa: E402
                             temp_dir, values, write_atomic)
from proc_fixture import add_process, drm_fdinfo  # noqa: E402

POD = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
POD_CGROUP = ("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
              + POD.replace("-", "_") + ".slice/cri-containerd-" + "cd" * 32 + ".scope\n")
JOB_CGROUP = "0::/system.slice/slurmstepd.scope/job_77/step_0/user/task_0\n"
STEPS = 6
JOB_STEP_NS, POD_STEP_NS = 300_000_000, 100_000_000  # engine time added per step
STEP_JOULES = 200.0


def scrape(port):
    return parse_samples(get(port)[2].decode())


def one(samples, name, **labels):
    v = values(samples, name, **labels)
    check(len(v) == 1, f"{name} {labels}: {v}")
    return v[0]


def main():
    binary, fixture = sys.argv[1:3]
    work = temp_dir("anygpu-exporter-jobs-")
    root = copy_fixture(fixture, os.path.join(work, "host"))
    inv = json.loads(subprocess.run([binary, "--root", root, "--no-libs", "detect", "--json"],
                                    check=True, capture_output=True).stdout)
    (bus0, render0), (bus1, _) = [(d["pci"]["bus_id"], d["render_node"])
                                  for d in inv["devices"][:2]]
    hwmon = glob.glob(os.path.realpath(os.path.join(root, "sys/bus/pci/devices", bus0))
                      + "/hwmon/hwmon*")
    check(len(hwmon) == 1, f"GPU 0's hwmon: {hwmon}")
    energy_file = os.path.join(hwmon[0], "energy1_input")
    joules = 5000.0

    def write_energy():
        write_atomic(energy_file, f"{int(joules * 1e6)}\n")

    job_fdinfo = os.path.join(root, "proc/200/fdinfo/5")
    pod_fdinfo = os.path.join(root, "proc/100/fdinfo/4")
    write_energy()
    add_process(root, 200, "train", JOB_CGROUP, {5: (render0, drm_fdinfo(bus0, 3, 4096, 0))})
    with open(os.path.join(root, "proc/200/environ"), "w") as f:
        f.write("PATH=/usr/bin\0SLURM_JOB_ID=77\0SLURM_JOB_GPUS=0,1\0")
    add_process(root, 100, "python3", POD_CGROUP, {4: (render0, drm_fdinfo(bus0, 1, 1024, 0))})
    add_process(root, 300, "monitor", "0::/\n", {3: (render0, None)})

    exporter = Exporter(binary, ["--root", root, "--no-libs"],
                        ["--no-health", "--interval", "0.2", "--processes",
                         "--processes-interval", "1"])
    try:
        time.sleep(1.5)  # the baseline scan and one more
        first = scrape(exporter.port)
        check(one(first, "anygpu_job_gpu_busy_seconds_total", job_id="77", gpu="0") == 0,
              "no engine time yet")
        for step in range(1, STEPS + 1):
            joules += STEP_JOULES
            write_energy()
            write_atomic(job_fdinfo, drm_fdinfo(bus0, 3, 4096, JOB_STEP_NS * step))
            write_atomic(pod_fdinfo, drm_fdinfo(bus0, 1, 1024, POD_STEP_NS * step))
            time.sleep(1.3)
        time.sleep(2.5)  # every change scanned
        s = scrape(exporter.port)
        device = one(s, "anygpu_gpu_energy_joules_total", gpu="0")
        check(abs(device - joules) < 1e-3, f"device counter {device}, written {joules}")
        job_j = one(s, "anygpu_job_gpu_energy_joules_total", job_kind="slurm", job_id="77",
                    gpu="0")
        pod_j = one(s, "anygpu_job_gpu_energy_joules_total", job_kind="pod", job_id=POD, gpu="0")
        grown = STEPS * STEP_JOULES
        total = job_j + pod_j
        print(f"job {job_j:.1f} J + pod {pod_j:.1f} J = {total:.1f} J; device grew {grown:.1f} J")
        check(abs(total - grown) <= 0.05 * grown,
              f"jobs' joules {total} vs the device counter's growth {grown}")
        check(0.6 <= job_j / total <= 0.9, f"job's share {job_j / total:.2f}, engine share 0.75")
        job_busy = one(s, "anygpu_job_gpu_busy_seconds_total", job_id="77", gpu="0")
        pod_busy = one(s, "anygpu_job_gpu_busy_seconds_total", job_id=POD, gpu="0")
        check(abs(job_busy - STEPS * JOB_STEP_NS / 1e9) < 0.05 * STEPS * JOB_STEP_NS / 1e9,
              f"job busy {job_busy}")
        check(abs(pod_busy - STEPS * POD_STEP_NS / 1e9) < 0.05 * STEPS * POD_STEP_NS / 1e9,
              f"pod busy {pod_busy}")
        check(one(s, "anygpu_job_gpu_memory_bytes", job_id="77", gpu="0") == 4096 * 1024,
              "job memory")
        check(one(s, "anygpu_gpu_allocated_idle", job_id="77", gpu="1",
                  pci_bus_id=bus1) == 1, "GPU 1 allocated, not held")
        check(values(s, "anygpu_gpu_allocated_idle", gpu="0") == [], "GPU 0 is held")
        check(values(s, "anygpu_job_gpu_busy_seconds_total", gpu="1") == [],
              "no busy time where no process of the job holds the device")
        check(len(values(s, "anygpu_job_gpu_energy_joules_total")) == 2,
              "the holder outside any job has no job series")
        check(one(s, "anygpu_job_series") == 3, "three (job, device) entries")
        check(one(s, "anygpu_job_series_dropped_total", reason="cap") == 0, "nothing refused")
        check(exporter.terminate() == 0, "exit status")

        # The journal the run left (written at the first sight, then flushed on SIGTERM),
        # beneath the root by default: `anygpu report` reads it.
        journal = os.path.join(root, "var/lib/anygpu/jobs/slurm-77.journal")
        check(os.path.isfile(journal), f"no journal at {journal}")
        rep = subprocess.run([binary, "--root", root, "--json", "report", "--slurm-job", "77"],
                             capture_output=True, text=True)
        check(rep.returncode == 0, f"report: {rep.returncode} {rep.stderr}")
        doc = json.loads(rep.stdout)
        by_bus = {d["pci_bus_id"]: d for d in doc["devices"]}
        check(set(by_bus) == {bus0, bus1}, f"report devices {sorted(by_bus)}")
        check(abs(by_bus[bus0]["energy_joules"] - job_j) < 1e-6 * max(job_j, 1),
              f"journal energy {by_bus[bus0]['energy_joules']} vs served {job_j}")
        check(abs(by_bus[bus0]["busy_seconds"] - job_busy) < 1e-6, "journal busy")
        check(by_bus[bus0]["peak_memory_bytes"] == 4096 * 1024, "journal peak memory")
        check(by_bus[bus1]["never_held"] and by_bus[bus1]["mean_busy"] == 0, "GPU 1 idle")
        check(by_bus[bus0]["gpu_hours"] > 0 and doc["total"]["never_held_devices"] == 1,
              f"totals {doc['total']}")
        epilog = subprocess.run([binary, "--root", root, "report", "--slurm-job", "77",
                                 "--epilog"], capture_output=True, text=True)
        check(epilog.returncode == 0 and epilog.stdout.count("\n") == 1 and
              epilog.stdout.startswith("anygpu job=slurm/77 gpus=2 ") and
              " idle_gpus=1 " in epilog.stdout, f"epilog line: {epilog.stdout!r}")
        missing = subprocess.run([binary, "--root", root, "report", "--slurm-job", "78"],
                                 capture_output=True, text=True)
        check(missing.returncode == 3 and "no journal" in missing.stderr,
              f"a job without a journal: {missing.returncode} {missing.stderr}")

        capped = Exporter(binary, ["--root", root, "--no-libs"],
                          ["--no-health", "--processes", "--max-job-series", "1"])
        try:
            s = scrape(capped.port)
            check(one(s, "anygpu_job_series") == 1, "capped at one entry")
            check(one(s, "anygpu_job_series_max") == 1, "the cap is served")
            check(one(s, "anygpu_job_series_dropped_total", reason="cap") >= 1,
                  "the refused entries are counted")
        finally:
            capped.terminate()
    finally:
        exporter.terminate()
    print("ok")


if __name__ == "__main__":
    main()
