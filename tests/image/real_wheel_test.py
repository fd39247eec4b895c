#!/usr/bin/python3
"""The fat binary reader of `anygpu image check` on PyTorch's own CUDA wheel (PyPI, in the
current-torch venv of tools/torch_venv.sh), compared with what that same torch says about its
build: `torch._C._cuda_getArchFlags()` (the CUDA_ARCH_FLAGS string compiled into
libtorch_python.so, torch/csrc/cuda/Module.cpp) and `torch.cuda.get_arch_list()` (derived from
it, torch/cuda/__init__.py). Neither needs a GPU.

Compared, for torch/lib/libtorch_cuda.so:
  - every sm_XY of get_arch_list() has generic cubins, and the PTX (compute_XY) the reader finds
    is exactly the list's compute_XY entries;
  - what the reader finds beyond the list is what PyTorch's cmake/Codegen.cmake adds for a few
    kernels (`_BUILD_FOR_ADDITIONAL_ARCHS`: RowwiseScaledMM.cu, ScaledGroupMM.cu, GroupMM.cu are
    compiled again for "89;90a;100a;103f;110a;120a;121a", each only when its base arch — 86 for
    89, 90, 100, 120 — is in the build; read in public copies of that file): generic sm_89, and
    arch-/family-specific cubins of those names only.
Every other torch/lib library with GPU code carries no generic cubin outside the list plus
sm_89. The reader's time per library is printed (and its throughput).

Exits 77 (skipped, reason printed) only when the venv does not exist; `make test` creates it.
Usage: real_wheel_test.py DUMP REPO
"""

import json
import subprocess
import sys
from pathlib import Path

PROBE = r"""
import json, os, torch
print(json.dumps({"version": torch.__version__, "cuda": torch.version.cuda,
                  "arch_flags": torch._C._cuda_getArchFlags(),
                  "arch_list": torch.cuda.get_arch_list(),
                  "lib": os.path.join(os.path.dirname(torch.__file__), "lib")}))
"""

failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + str(detail)[:3000]))
    if not ok:
        failures.append(name)


def main(dump, repo):
    venv = subprocess.run([str(Path(repo) / "tools" / "torch_venv.sh"), "--path"],
                          capture_output=True, text=True)
    if venv.returncode != 0:
        print("SKIPPED: " + venv.stderr.strip())
        return 77
    python = venv.stdout.strip()
    probe = subprocess.run([python, "-c", PROBE], capture_output=True, text=True, timeout=300,
                           env={"CUDA_VISIBLE_DEVICES": "", "PATH": "/usr/bin:/bin"})
    if probe.returncode != 0:
        check("torch imports in the venv", False, probe.stderr)
        return 1
    torch = json.loads(probe.stdout.strip().splitlines()[-1])
    print(f"torch {torch['version']} (CUDA {torch['cuda']}): _cuda_getArchFlags() = "
          f"{torch['arch_flags']!r}; get_arch_list() = {torch['arch_list']}")
    if not torch["cuda"]:
        check("the venv's torch is a CUDA build", False, torch)
        return 1
    listed = set(torch["arch_list"])
    flags = set(torch["arch_flags"].split())
    check("get_arch_list() is the arch flags' list", listed == flags, (listed, flags))

    lib = Path(torch["lib"])
    libs = sorted(p for p in lib.glob("*.so*") if p.is_file())
    out = subprocess.run([dump] + [str(p) for p in libs], capture_output=True, text=True,
                         timeout=900)
    check("the reader reads every torch/lib library", out.returncode == 0, out.stderr)
    results = {Path(j["file"]).name: j for j in map(json.loads, out.stdout.splitlines())}
    for name, j in results.items():
        if j["archs"]:
            mib = j["bytes"] / 2**20
            print(f"  {name}: {mib:.0f} MiB read in {j['seconds']:.2f} s "
                  f"({mib / max(j['seconds'], 1e-9):.0f} MiB/s): {' '.join(j['archs'])}")

    listed_sm = {a for a in listed if a.startswith("sm_")}
    # _BUILD_FOR_ADDITIONAL_ARCHS: each extra target and the base arch that enables it.
    additional = {"sm_89": "sm_86", "sm_90a": "sm_90", "sm_100a": "sm_100", "sm_103f": "sm_100",
                  "sm_110a": "sm_100", "sm_120a": "sm_120", "sm_121a": "sm_120"}
    allowed = {a for a, base in additional.items() if base in listed_sm}
    main_lib = results.get("libtorch_cuda.so")
    check("libtorch_cuda.so is in the wheel", main_lib is not None, sorted(results))
    if main_lib:
        sass = {f"sm_{s}" for s in main_lib["sass"]}
        ptx = {f"compute_{s}" for s in main_lib["ptx"]}
        check("libtorch_cuda.so: a cubin for every sm_XY of get_arch_list()", listed_sm <= sass,
              (sorted(sass), sorted(listed)))
        check("libtorch_cuda.so: PTX == get_arch_list()'s compute_XY",
              ptx == {a for a in listed if a.startswith("compute_")}, (sorted(ptx), listed))
        beyond = (sass - listed_sm) | set(main_lib["specific"])
        check("libtorch_cuda.so: beyond the list only Codegen.cmake's additional archs",
              beyond <= allowed, (sorted(beyond), sorted(allowed)))
        print(f"  libtorch_cuda.so beyond get_arch_list(): {' '.join(sorted(beyond))}")
    for name, j in results.items():
        extra = {f"sm_{s}" for s in j["sass"]} - listed_sm - allowed
        if j["archs"] and name != "libtorch_cuda.so":
            check(f"{name}: no cubin outside the torch build's list", not extra, sorted(extra))
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
