#!/usr/bin/python3
"""A real host replayed: tests/captures/h200-vm is `anygpu gather` of a virtual machine with one
NVIDIA H200 (see tests/captures/README.md). Every command answers from it what that host showed:
the values below are the ones `nvidia-smi` printed on it in the same run (index 0, bus
00000000:00:06.0, "NVIDIA H200", driver 580.159.04), or what the captured files hold. Its driver
user space lives in /usr/local/nvidia/lib64, a directory only the host's ld.so.cache names: the
container edits must carry libcuda from there.

  captured_h200_test.py ANYGPU CAPTURE
"""
import json
import os
import subprocess
import sys

ANYGPU, CAPTURE = sys.argv[1], os.path.abspath(sys.argv[2])
ENV = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "ANYGPU_ROOT")}
failures = []


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what + (f": {detail}" if detail and not ok else ""))
    if not ok:
        failures.append(what)


def anygpu(*args):
    r = subprocess.run([ANYGPU, "--root", CAPTURE, "--no-libs", *args], capture_output=True,
                       text=True, env=ENV, timeout=120)
    return r.returncode, r.stdout, r.stderr


def as_json(*args, code=0):
    rc, out, err = anygpu("--json", *args)
    check(rc == code, f"{' '.join(args)} exits {code}", f"{rc}: {err}")
    return json.loads(out), err


inv, _ = as_json("detect")
devices = inv["devices"]
check(len(devices) == 1, "one device", devices)
d = devices[0]
expect = {"vendor": "nvidia", "index": 0, "name": "NVIDIA H200", "arch": "sm_90",
          "cpu_affinity": "0-15", "status": "ok", "device_nodes": ["/dev/nvidia0"],
          "sources": ["sysfs", "registry"]}
for key, value in expect.items():
    check(d.get(key) == value, f"detect {key} = {value!r}", d.get(key))
check(d["pci"]["bus_id"] == "0000:00:06.0" and d["pci"]["device_id"] == "0x2335",
      "detect bus 0000:00:06.0, device 0x2335", d["pci"])
check(d["pci"]["link"] == {"speed_gts": 32.0, "width": 16}, "detect link 32 GT/s x16")
check(d["driver"] == {"name": "nvidia", "version": "580.159.04"}, "detect driver 580.159.04")
# No NVML in a replay: the memory is the registry's figure for the model, said as such.
check(d["memory_total_bytes"] == 141 * 2**30, "detect memory from the registry (141 GiB)")
check(d.get("partitions") in (None, []), "no partitions (MIG disabled: no GI capabilities)")
check(inv["runtimes"] == [{"vendor": "nvidia", "component": "cuda-driver", "version": "13.0",
                           "source": "driver 580.159.04"}], "CUDA 13.0 from driver 580", inv["runtimes"])
check(inv["warnings"] == [], "detect has no warnings", inv["warnings"])

health, _ = as_json("health")
check([x["health"] for x in health["devices"]] == ["ok"], "health ok")
check(health["devices"][0]["findings"] == [], "health: no findings in the VM's kernel log")
check(any(s["source"] == "kernel-log" and s["read"] for s in health["sources"]),
      "health read the captured kernel log")

topo, _ = as_json("topo")
check(topo["links"] == [] and topo["nics"] == [] and topo["warnings"] == [],
      "topo: one GPU, no links, no NICs", topo)

sel, _ = as_json("select", "--devices", "1")
check(sel["devices"] == ["0000:00:06.0"] and sel["env"]["CUDA_VISIBLE_DEVICES"] == "0",
      "select: the GPU as CUDA device 0", sel)

pre, _ = as_json("preflight", code=3)  # 3: nothing was tested
check([x["verdict"] for x in pre["devices"]] == ["skipped"] and
      "replayed host" in pre["devices"][0]["reason"], "preflight skips a replayed host")

rc, gres, err = anygpu("slurm", "gres")
check(rc == 0 and f"Name=gpu Type=h200 File={CAPTURE}/dev/nvidia0 Cores=0-15" in gres,
      "slurm gres: one h200 line with its cores", gres + err)

rc, spec, err = anygpu("cdi", "generate")
check(rc == 0, "cdi generate exits 0", err)
check("outside the loader" not in err, "no driver library left out", err)
lib = "/usr/local/nvidia/lib64"
check(f"hostPath: {CAPTURE}{lib}/libcuda.so.580.159.04\n      containerPath: {lib}/libcuda.so.1"
      in spec, "libcuda.so.1 from the loader-configured /usr/local/nvidia/lib64")
check(f"update-ldcache, --folder, {lib}]" in spec, "the container's loader cache gains the folder")
check(f"hostPath: {CAPTURE}/dev/nvidia0" in spec, "the device node")

sys.exit(1 if failures else 0)
