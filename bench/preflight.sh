#!/bin/sh
# `anygpu preflight` on the CPU path (2 processes, gloo all-reduce) against the same test
# processes started by torchrun itself: what the selection, lock, plan, supervision and
# judgement add to the test's own time. The test's own time is fixed by its budgets
# (python/anygpu/torch/preflight.py: about 1 s of matmul, 1 s of memory, 0.5 s of all-reduce per
# process), and devices are tested in parallel, so 8 devices take about what 2 do.
# Usage: bench/preflight.sh BUILD_DIR   (needs hyperfine, Debian's python3-torch)
set -eu
build=${1:?usage: bench/preflight.sh BUILD_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$(cd "$build" && pwd)/anygpu"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'backend: cpu\n' >"$tmp/cpu.yaml"
export PYTHONPATH="$here/python" ANYGPU_LIBRARY="$(cd "$build" && pwd)/libanygpu.so" OMP_NUM_THREADS=1
mkdir "$tmp/out"
# torch 1.13's torchrun on Python 3.11 needs non-zero redirects (docs/run.md).
hyperfine -N --warmup 1 --runs 5 --export-json "$tmp/r.json" \
  --prepare "rm -f $tmp/out/rank-0.json $tmp/out/rank-1.json" \
  -n "torchrun, the test processes alone" \
  "/usr/bin/python3 -m torch.distributed.run --standalone --nproc_per_node 2 --redirects 1 --tee 1 -m anygpu.torch.preflight $tmp/out" \
  -n "anygpu preflight --nproc-per-node 2" \
  "$bin preflight --config $tmp/cpu.yaml --nproc-per-node 2 --python /usr/bin/python3" \
  >/dev/null
python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print("| command | median | ratio |")
print("|---|---|---|")
for x in r:
    print(f"| `{x['command']}` | {x['median']:.2f} s | {x['median'] / r[0]['median']:.2f}x |")
PY
