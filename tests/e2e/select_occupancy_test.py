#!/usr/bin/python3
"""`anygpu select -v` and `--json` (and `run --dry-run -v`) with occupancy criteria on a fixture.

A copy of the 8×MI300X fixture gets metrics and a /proc that reject one device by each criterion:
amd 1 has 190 GiB of its 191.98 GiB used (free_memory_gb min: 64), amd 2 is 90 % busy (utilization
max: 50%), amd 3 is held by two processes (holders max: 1), amd 4 has no gpu_busy_percent
(utilization unknown). amd 0 has one holder and amd 5 a zombie holder (ended: not counted), both
within the limits. Every reason is on stderr with -v and in the JSON's "rejected"; the chosen
devices are the others. Then: /proc that cannot show every process (no /proc/self/status) makes
holders unknown and rejects every device (the CPU is chosen); a malformed criterion is exit 2
with FILE:LINE:COLUMN; and on the 8×H100 fixture with the mock NVML, the library's process list
(a zombie left out) decides the holders.

usage: select_occupancy_test.py ANYGPU FIXTURE_DIR H100_FIXTURE_DIR MOCK_NVML_HEALTH_SO
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proc_fixture import add_process, drm_fdinfo, host_with_library  # noqa: E402

GIB = 1 << 30
CONFIG = """\
device_selection_policy:
  - priority: 1
    criteria:
      - {type: free_memory_gb, min: 64}
      - {type: utilization, max: 50%}
      - {type: holders, max: 1}
"""

failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(f"{what}\n{detail}")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def run(binary, root, *args, env=None, libs=False):
    flags = [] if libs else ["--no-libs"]
    return subprocess.run([binary, "--root", root, *flags, *args], capture_output=True,
                          text=True, env=env, timeout=60)


def set_state(root, pid, state):
    path = os.path.join(root, "proc", str(pid), "status")
    with open(path) as f:
        text = f.read()
    write(path, text + f"State:\t{state}\n")


def this_process_sees_all(root):
    """/proc/self as the initial PID namespace shows it, without hidepid."""
    write(os.path.join(root, "proc/self/status"), "Name:\tanygpu\nState:\tR (running)\n"
          "NSpid:\t4321\n")
    write(os.path.join(root, "proc/self/mountinfo"),
          "22 1 0:21 / /proc rw,nosuid,nodev,noexec - proc proc rw\n")


def amd_host(binary, fixture, work):
    root = os.path.join(work, "amd")
    shutil.copytree(fixture, root, symlinks=True)
    inv = json.loads(run(binary, root, "detect", "--json").stdout)
    devices = inv["devices"]
    sysfs = {d["pci"]["bus_id"]: os.path.realpath(os.path.join(root, "sys/bus/pci/devices",
                                                                d["pci"]["bus_id"]))
             for d in devices}
    for i, d in enumerate(devices):
        base = sysfs[d["pci"]["bus_id"]]
        write(os.path.join(base, "gpu_busy_percent"), "90\n" if i == 2 else "5\n")
        write(os.path.join(base, "mem_info_vram_used"),
              f"{190 * GIB if i == 1 else 8 * GIB}\n")
    os.remove(os.path.join(sysfs[devices[4]["pci"]["bus_id"]], "gpu_busy_percent"))
    this_process_sees_all(root)
    node = [d["render_node"] for d in devices]
    bus = [d["pci"]["bus_id"] for d in devices]
    add_process(root, 100, "train", "0::/\n", {3: (node[0], drm_fdinfo(bus[0], 1, 1024))})
    add_process(root, 200, "train", "0::/\n", {3: (node[3], drm_fdinfo(bus[3], 2, 1024))})
    add_process(root, 201, "eval", "0::/\n", {3: (node[3], drm_fdinfo(bus[3], 3, 1024))})
    add_process(root, 300, "gone", "0::/\n", {3: (node[5], None)})
    for pid in (100, 200, 201):
        set_state(root, pid, "S (sleeping)")
    set_state(root, 300, "Z (zombie)")
    return root, bus


def main():
    binary, fixture, h100, mock_nvml = sys.argv[1:5]
    work = tempfile.mkdtemp(prefix="anygpu-select-occupancy-")
    try:
        root, bus = amd_host(binary, fixture, work)
        cfg = os.path.join(work, "accelerator-config.yaml")
        write(cfg, CONFIG)

        want = {
            1: "free memory 1.984 GiB is less than 64 GiB",  # of 191.98 GiB
            2: "utilization 90% is more than 50%",
            3: "2 processes hold it, more than 1 allowed",
            4: "utilization unknown: sysfs gave no utilization for this device",
        }
        v = run(binary, root, "-v", "select", "--config", cfg)
        check(v.returncode == 0, "select -v: exit 0", v.stderr)
        for i, reason in want.items():
            line = f"anygpu: policy priority 1 rejected amd {i} ({bus[i]}): {reason}"
            check(line in v.stderr.splitlines(), f"select -v says: {line}", v.stderr)
        check("ANYGPU_DEVICES=" + ",".join(bus[i] for i in (0, 5, 6, 7)) in v.stdout,
              "select chooses amd 0, 5, 6, 7", v.stdout)

        j = run(binary, root, "--json", "select", "--config", cfg)
        check(j.returncode == 0, "select --json: exit 0", j.stderr)
        doc = json.loads(j.stdout)
        check(doc["devices"] == [bus[i] for i in (0, 5, 6, 7)], "--json devices", j.stdout)
        got = {r["device"]: r for r in doc.get("rejected", [])}
        check(sorted(got) == sorted(bus[i] for i in want), "--json rejects amd 1-4", j.stdout)
        for i, reason in want.items():
            r = got.get(bus[i], {})
            check(r.get("reason") == reason and r.get("vendor") == "amd" and
                  r.get("policy_priority") == 1, f"--json reason of amd {i}", json.dumps(r))

        # run takes the same selection and says the same with -v.
        d = run(binary, root, "-v", "run", "--no-check", "--config", cfg, "--dry-run", "--",
                "true")
        check(d.returncode == 0, "run --dry-run: exit 0", d.stderr)
        check(f"anygpu: policy priority 1 rejected amd 2 ({bus[2]}): {want[2]}" in
              d.stderr.splitlines(), "run -v names the busy device", d.stderr)

        # /proc that may not show every process: holders unknown, every device rejected.
        os.remove(os.path.join(root, "proc/self/status"))
        u = run(binary, root, "--json", "select", "--config", cfg)
        doc = json.loads(u.stdout)
        check(doc["vendor"] == "cpu" and len(doc.get("rejected", [])) == 8,
              "unknown holders reject every device", u.stdout)
        holders = [r for r in doc.get("rejected", []) if r["device"] == bus[0]]
        check(holders and holders[0]["reason"].startswith(
            "holders unknown: cannot tell whether /proc shows every process ("),
              "the reason says why holders are unknown", json.dumps(holders))

        # Bad input: exit 2 with FILE:LINE:COLUMN.
        bad = os.path.join(work, "bad.yaml")
        write(bad, CONFIG.replace("max: 50%", "max: 50"))
        b = run(binary, root, "select", "--config", bad)
        check(b.returncode == 2 and f"{bad}:5:34: utilization max: expected a ratio" in b.stderr,
              "a bare 50 is refused at its place", b.stderr)

        # NVIDIA: NVML's process list decides (the mock, through the worker); a zombie it still
        # lists is left out.
        nv = os.path.join(work, "h100")
        host_with_library(h100, nv, mock_nvml)
        facts = os.path.join(work, "nvml-health")
        write(facts, "5 process 4242 1073741824\n6 process 77 -\n")
        add_process(nv, 4242, "python3", "0::/\n", {3: ("/dev/nvidia5", None)})
        set_state(nv, 4242, "R (running)")
        write(os.path.join(nv, "proc/77/status"), "Name:\ttrainer\nState:\tZ (zombie)\n")
        write(os.path.join(nv, "proc/77/comm"), "trainer\n")
        ncfg = os.path.join(work, "nvidia.yaml")
        write(ncfg, "device_selection_policy:\n  - priority: 1\n    criteria:\n"
              "      - {type: holders, max: 0}\n")
        env = dict(os.environ, MOCK_NVML_HEALTH_FILE=facts)
        n = run(binary, nv, "--json", "select", "--config", ncfg, env=env, libs=True)
        check(n.returncode == 0, "nvidia select: exit 0", n.stderr)
        doc = json.loads(n.stdout)
        rejected = doc.get("rejected", [])
        check(len(doc["devices"]) == 7 and len(rejected) == 1 and
              rejected[0]["reason"] == "1 process holds it, more than 0 allowed",
              "NVML's list: one held device, the zombie's is free", n.stdout)
    finally:
        shutil.rmtree(work)
    if failures:
        for f in failures:
            print("FAIL:", f)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
