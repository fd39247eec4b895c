#!/usr/bin/python3
"""Per-MIG-instance memory in `anygpu exporter` and `anygpu metrics` on a MIG host.

A copy of the h100-8x-mig fixture (MIG on GPUs 0-2, eleven instances) with the mock NVML of
tests/mocklibs/nvml_mig.cc, loaded by the library worker as in production. The mock answers
nvmlDeviceGetMemoryInfo on each MIG device handle with a size and a use of that instance's own
(GPU 0: 101..107 MiB on its seven 1g.10gb; GPU 1: 2048, 512, 768 MiB; GPU 2: 3072 MiB), and
answers temperature and power per parent GPU only, utilisation only on GPUs without MIG. The
test checks, through the running exporter, one memory series per instance with the labels
`partition` (its index in `detect`), `partition_id` (its MIG-<uuid>) and `profile`, carrying the
planted values; that no other family has a partition series (the parent's temperature and
power are not repeated on its instances, and a MIG GPU's utilisation is absent, not 0); that
promtool accepts the page; and that `metrics --json` and the table show the same instances
under their parents.

usage: exporter_mig_test.py ANYGPU H100_MIG_FIXTURE MOCK_NVML_MIG_SO
"""

import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import (Exporter, check, get, parse_samples, require_tool,  # noqa: E402
                             temp_dir, values)
from proc_fixture import host_with_library  # noqa: E402

MIB = 1048576
GIB1, GIB40 = 10200547328, 40802189312
# (gpu, partition index, MIG uuid, profile, used MiB, total bytes), as the mock plants them.
INSTANCES = [(0, i, f"MIG-0a7f0c6e-3b1d-5e2a-9c41-7d2e8f6a1b{7 + i:02x}", "1g.10gb", 101 + i, GIB1)
             for i in range(7)] + [
    (1, 0, "MIG-5c2e9d41-7a3b-5f60-8e12-3a4b5c6d7e01", "4g.40gb", 2048, GIB40),
    (1, 1, "MIG-5c2e9d41-7a3b-5f60-8e12-3a4b5c6d7e20", "1c.3g.40gb", 512, GIB40),
    (1, 2, "MIG-5c2e9d41-7a3b-5f60-8e12-3a4b5c6d7e21", "2c.3g.40gb", 768, GIB40),
    (2, 0, "MIG-9e8d7c6b-5a49-5382-a1b0-c9d8e7f6a520", "3g.40gb", 3072, GIB40),
]
MEMORY_FAMILIES = ("anygpu_gpu_memory_used_bytes", "anygpu_gpu_memory_total_bytes")


def check_page(body):
    samples = parse_samples(body)
    for gpu, index, uuid, profile, used_mib, total in INSTANCES:
        labels = dict(gpu=str(gpu), partition=str(index), partition_id=uuid, profile=profile)
        used = values(samples, "anygpu_gpu_memory_used_bytes", **labels)
        check(used == [used_mib * MIB], f"GPU {gpu} partition {index} memory used: {used}")
        size = values(samples, "anygpu_gpu_memory_total_bytes", **labels)
        check(size == [total], f"GPU {gpu} partition {index} memory total: {size}")
    with_partition = [(n, dict(ls)) for (n, ls), _ in samples.items()
                      if any(k == "partition" for k, _ in ls)]
    check(len(with_partition) == 2 * len(INSTANCES),
          f"{len(with_partition)} partition series, expected {2 * len(INSTANCES)}")
    for name, labels in with_partition:
        check(name in MEMORY_FAMILIES, f"only memory is per instance, found {name} {labels}")
    for gpu in range(8):
        temp = [v for (n, ls), v in samples.items()
                if n == "anygpu_gpu_temperature_celsius" and ("gpu", str(gpu)) in ls]
        check(temp == [30.0 + gpu], f"GPU {gpu}: one temperature series, the parent's: {temp}")
        util = values(samples, "anygpu_gpu_utilization_ratio", gpu=str(gpu))
        want = [] if gpu <= 2 else [gpu / 10]
        check(util == want, f"GPU {gpu} utilisation {util}, expected {want} (absent under MIG)")
    parent = [v for (n, ls), v in samples.items() if n == "anygpu_gpu_memory_used_bytes"
              and ("gpu", "1") in ls and not any(k == "partition" for k, _ in ls)]
    check(parent == [(2048 + 512 + 768) * MIB], f"GPU 1's own memory series: {parent}")


def check_cli(binary, root):
    out = subprocess.run([binary, "--root", root, "metrics", "--json"], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    devices = json.loads(out)["devices"]
    for gpu, index, uuid, profile, used_mib, total in INSTANCES:
        p = devices[gpu]["partitions"][index]
        check(p == {"index": index, "id": uuid, "profile": profile,
                    "memory_used_bytes": used_mib * MIB, "memory_total_bytes": total},
              f"--json GPU {gpu} partition {index}: {p}")
    for d in devices[3:]:
        check("partitions" not in d, f"GPU {d['index']} without MIG has no partitions: {d}")
    for d in devices:
        check("warnings" not in d, f"GPU {d['index']} warnings: {d.get('warnings')}")
    table = subprocess.run([binary, "--root", root, "metrics"], capture_output=True, text=True,
                           timeout=60, check=True).stdout.splitlines()
    at = next(i for i, line in enumerate(table) if " 0000:2a:00.0 " in line)
    check(table[at + 3] == "  partition 2: MIG-5c2e9d41-7a3b-5f60-8e12-3a4b5c6d7e21, "
          "2c.3g.40gb, memory 0.8/38.0 GiB", f"table under GPU 1: {table[at:at + 4]}")


def main():
    binary, fixture, mock = sys.argv[1:4]
    promtool = require_tool("promtool")
    work = temp_dir("anygpu-mig-")
    try:
        root = host_with_library(fixture, os.path.join(work, "host"), mock)
        check_cli(binary, root)
        exporter = Exporter(binary, ["--root", root], ["--no-health"])
        try:
            status, _, body = get(exporter.port)
            check(status == 200, f"/metrics answered {status}")
            text = body.decode()
            check_page(text)
            lint = subprocess.run([promtool, "check", "metrics"], input=text, text=True,
                                  capture_output=True, timeout=60)
            check(lint.returncode == 0, f"promtool: {lint.stdout}{lint.stderr}")
        finally:
            exporter.terminate()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
