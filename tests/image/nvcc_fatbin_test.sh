#!/bin/bash
# The fat binary reader on what NVIDIA's own compiler writes: nvcc builds a shared library for
# a known list of targets (generic cubins, PTX, an arch-specific sm_90a), and
# `anygpu image check` must list exactly those targets from the .nv_fatbin section, and judge
# them on the fixture hosts (RTX 4090 sm_89, H100 sm_90). Registered only where nvcc exists.
# Usage: nvcc_fatbin_test.sh ANYGPU TESTS_DIR NVCC
set -u
anygpu=$(realpath "${1:?usage: nvcc_fatbin_test.sh ANYGPU TESTS_DIR NVCC}")
tests=$(realpath "${2:?usage: nvcc_fatbin_test.sh ANYGPU TESTS_DIR NVCC}")
nvcc=${3:?usage: nvcc_fatbin_test.sh ANYGPU TESTS_DIR NVCC}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-nvcc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# What images hold is cached by image id: a private cache, not the user's.
mkdir "$tmp/cache"
export ANYGPU_CACHE_DIR=$tmp/cache
failed=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; failed=1; }

cat >"$tmp/k.cu" <<'CU'
__global__ void add(float* a, float b) { a[threadIdx.x] += b; }
extern "C" void launch(float* a) { add<<<1, 32>>>(a, 1.0f); }
CU
# case: gencode flags, expected archs, expected verdict on the 4090, on the H100
cases=(
  "wide|-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_80,code=compute_80 -gencode arch=compute_90a,code=sm_90a|sm_75 sm_80 sm_90a compute_80|ok|ok"
  "hopper-only|-gencode arch=compute_90a,code=sm_90a -gencode arch=compute_90a,code=compute_90a|sm_90a compute_90a|fail|ok"
)
for c in "${cases[@]}"; do
  IFS='|' read -r name flags want on4090 onh100 <<<"$c"
  # shellcheck disable=SC2086
  "$nvcc" -shared -Xcompiler -fPIC -o "$tmp/lib$name.so" "$tmp/k.cu" $flags 2>"$tmp/nvcc.err" ||
    { cat "$tmp/nvcc.err"; bad "$name: nvcc"; continue; }
  python3 - "$here" "$tmp/lib$name.so" "$tmp/$name.tar" <<'PY' || { bad "$name: image"; continue; }
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import make_images as mk
lib = Path(sys.argv[2])
mk.docker_archive(sys.argv[3], [mk.layer_tar({"opt/k/" + lib.name: lib.read_bytes()})], [])
PY
  for host in workstation-mixed:$on4090:0000:01:00.0 h100-8x:$onh100:0000:18:00.0; do
    IFS=: read -r fixture verdict bus <<<"$host"
    out=$("$anygpu" --root "$tests/hosts/$fixture" --no-libs image check --json "$tmp/$name.tar")
    python3 - "$out" "$want" "$verdict" "$bus" <<'PY' &&
import json, sys
d, want, verdict, bus = json.loads(sys.argv[1]), sys.argv[2].split(), sys.argv[3], sys.argv[4]
assert [c["archs"] for c in d["code_objects"]] == [want], d["code_objects"]
got = {x["pci_bus_id"]: x["verdict"] for x in d["devices"]}[bus]
assert got == verdict, (got, d["devices"])
PY
      ok "$name on $fixture: $want, $verdict" || bad "$name on $fixture: $out"
  done
done
exit $failed
