#!/usr/bin/python3
"""`anygpu top`'s process pane, printed when stdout is not a terminal, on a fixture /proc.

A copy of the 8×MI300X fixture gets /etc/passwd and a /proc: a pod's process on GPUs 0 and 1
(amdgpu fdinfo, 3 GiB resident VRAM), a Slurm job's on GPU 1 (512 MiB), a container's without
DRM statistics on GPU 2, and a shell holding nothing. `top -n 1` through a pipe prints the
metrics table, a blank line, then the pane, compared line for line with the expected text;
`--no-processes` prints no pane.

NVIDIA publishes no DRM statistics: a copy of the 8×H100 fixture with the mock NVML of
tests/mocklibs/nvml_health.cc (loaded by the library worker, as in production) lists a process
holding /dev/nvidia5 with 1 GiB and one /proc does not show (a container's): the pane has the
memory NVML reports and the hidden process.

usage: top_processes_test.py ANYGPU FIXTURE_DIR H100_FIXTURE_DIR MOCK_NVML_HEALTH_SO
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proc_fixture import add_process, drm_fdinfo, host_with_library  # noqa: E402

EXPECTED = """\
     PID USER       COMMAND          GPUS      MEMORY  OWNER
     100 alice      python3          0,1         3.0G  pod:0f1e2d3c
     200 root       train            1           512M  job:77.0
     300 alice      serve            2              -  docker:4a5b6c7d8e9f
"""


EXPECTED_NVML = """\
     PID USER       COMMAND          GPUS      MEMORY  OWNER
      77 ?          trainer          5              -  -
    4242 root       python3          5,6         1.0G  -
"""


def pane(binary, root, *args, libs=False, env=None):
    flags = [] if libs else ["--no-libs"]
    out = subprocess.run([binary, "--root", root, *flags, "top", "-n", "1", *args],
                         check=True, capture_output=True, text=True, env=env).stdout
    head, sep, tail = out.partition("\n\n")
    if not sep:
        return None
    return tail


def main():
    binary, fixture, h100, mock_nvml = sys.argv[1:5]
    work = tempfile.mkdtemp(prefix="anygpu-top-processes-")
    try:
        root = os.path.join(work, "host")
        shutil.copytree(fixture, root, symlinks=True)
        os.makedirs(os.path.join(root, "etc"), exist_ok=True)
        with open(os.path.join(root, "etc/passwd"), "w") as f:
            f.write("root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n")
        inv = json.loads(subprocess.run([binary, "--root", root, "--no-libs", "detect", "--json"],
                                        check=True, capture_output=True).stdout)
        gpu = [(d["pci"]["bus_id"], d["render_node"]) for d in inv["devices"][:3]]
        pod = ("0::/kubepods.slice/kubepods-pod0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0.slice/"
               "cri-containerd-" + "ab" * 32 + ".scope\n")
        add_process(root, 100, "python3", pod,
                    {4: (gpu[0][1], drm_fdinfo(gpu[0][0], 1, 2 << 20)),
                     5: (gpu[1][1], drm_fdinfo(gpu[1][0], 2, 1 << 20))}, uid=1000)
        add_process(root, 200, "train",
                    "0::/system.slice/slurmstepd.scope/job_77/step_0/user/task_0\n",
                    {3: (gpu[1][1], drm_fdinfo(gpu[1][0], 3, 512 << 10))})
        add_process(root, 300, "serve", "0::/system.slice/docker-4a5b6c7d8e9f" +
                    "0" * 52 + ".scope\n", {3: (gpu[2][1], None)}, uid=1000)
        add_process(root, 400, "bash", "0::/\n", {0: ("/dev/pts/0", None)})

        got = pane(binary, root)
        if got != EXPECTED:
            print(f"FAIL: the pane differs.\nexpected:\n{EXPECTED}\ngot:\n{got}")
            sys.exit(1)
        if pane(binary, root, "--no-processes") is not None:
            print("FAIL: --no-processes printed a pane")
            sys.exit(1)

        nv = os.path.join(work, "h100")
        host_with_library(h100, nv, mock_nvml)
        facts = os.path.join(work, "nvml-health")
        with open(facts, "w") as f:
            f.write("5 process 4242 1073741823\n5 process 77 -\n6 process 4242 1\n")
        os.makedirs(os.path.join(nv, "etc"), exist_ok=True)
        with open(os.path.join(nv, "etc/passwd"), "w") as f:
            f.write("root:x:0:0::/root:/bin/sh\n")
        add_process(nv, 4242, "python3", "0::/\n", {3: ("/dev/nvidia5", None)})
        os.makedirs(os.path.join(nv, "proc/77"))
        with open(os.path.join(nv, "proc/77/comm"), "w") as f:
            f.write("trainer\n")
        env = dict(os.environ, MOCK_NVML_HEALTH_FILE=facts)
        got = pane(binary, nv, libs=True, env=env)
        if got != EXPECTED_NVML:
            print(f"FAIL: the NVML pane differs.\nexpected:\n{EXPECTED_NVML}\ngot:\n{got}")
            sys.exit(1)
    finally:
        shutil.rmtree(work)
    print("ok")


if __name__ == "__main__":
    main()
