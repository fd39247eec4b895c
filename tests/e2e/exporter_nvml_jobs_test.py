#!/usr/bin/python3
"""NVIDIA jobs' busy time in `anygpu exporter --processes`, from NVML's per-process utilisation.

NVIDIA's driver publishes no DRM engine counters, so a job's busy seconds come from
nvmlDeviceGetProcessUtilization (the mock NVML of tests/mocklibs/nvml_health.cc, loaded by the
library worker as in production). A copy of the 8×H100 fixture gets a Slurm job's process
(job 88) holding /dev/nvidia5 at 75 % SM utilisation and a pod-less, job-less process on
/dev/nvidia6 that NVML lists without a sample (idle: nothing to account to a job). The test
checks through the running exporter that job 88's anygpu_job_gpu_busy_seconds_total on GPU 5
grows at about 0.75 s per second, and that a GPU whose NVML cannot say (NOT_SUPPORTED) gets no
busy series for the job holding it (unknown is absent, never 0).

usage: exporter_nvml_jobs_test.py ANYGPU H100_FIXTURE MOCK_NVML_HEALTH_SO
"""

import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import Exporter, check, get, parse_samples, temp_dir, values  # noqa: E402
from proc_fixture import add_process, host_with_library  # noqa: E402

JOB_CGROUP = "0::/system.slice/slurmstepd.scope/job_{}/step_0/user/task_0\n"


def busy(port, job, gpu):
    status, _, body = get(port)
    check(status == 200, f"/metrics answered {status}")
    found = values(parse_samples(body.decode()), "anygpu_job_gpu_busy_seconds_total",
                   job_id=job, gpu=gpu)
    return found[0] if found else None


def main():
    binary, fixture, mock = sys.argv[1:4]
    work = temp_dir("anygpu-nvml-jobs-")
    try:
        root = os.path.join(work, "host")
        host_with_library(fixture, root, mock)
        facts = os.path.join(work, "nvml-health")
        with open(facts, "w") as f:
            # GPU 5: job 88's process, sampled 1 ms ago at 75 %. GPU 7: job 89's process, and
            # NVML cannot say how busy (NOT_SUPPORTED).
            f.write("5 process 4242 1073741824\n5 util 4242 75 1000\n"
                    "7 process 4343 1024\n7 util-unsupported\n")
        add_process(root, 4242, "python3", JOB_CGROUP.format(88), {3: ("/dev/nvidia5", None)})
        add_process(root, 4343, "python3", JOB_CGROUP.format(89), {3: ("/dev/nvidia7", None)})
        env = dict(os.environ, MOCK_NVML_HEALTH_FILE=facts)
        exporter = Exporter(binary, ["--root", root], ["--no-health", "--processes",
                                                       "--processes-interval", "1"], env=env)
        try:
            first = None
            deadline = time.monotonic() + 20
            while first is None and time.monotonic() < deadline:
                first = busy(exporter.port, "88", "5")
                t0 = time.monotonic()
                time.sleep(0.5)
            check(first is not None, "job 88 has a busy series on GPU 5")
            time.sleep(4)
            second = busy(exporter.port, "88", "5")
            elapsed = time.monotonic() - t0
            rate = (second - first) / elapsed
            print(f"job 88 on GPU 5: {second - first:.2f} busy s in {elapsed:.2f} s ({rate:.2f})")
            # Scans land on a 1 s grid: allow a scan's worth either way.
            check(0.75 * (elapsed - 1.5) <= second - first <= 0.75 * (elapsed + 1.5),
                  f"busy seconds grow at 0.75/s, got {second - first:.2f} in {elapsed:.2f} s")
            check(busy(exporter.port, "89", "7") is None,
                  "no busy series where NVML cannot say (job 89 on GPU 7)")
            status, _, body = get(exporter.port)
            mem = values(parse_samples(body.decode()), "anygpu_job_gpu_memory_bytes",
                         job_id="88", gpu="5")
            check(mem == [1073741824.0], f"job 88's memory on GPU 5 from NVML: {mem}")
        finally:
            exporter.terminate()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
