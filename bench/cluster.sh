#!/bin/sh
# Whole-command timings for `anygpu cdi`, `slurm gres` and `k8s` on fixture hosts (hyperfine),
# printed as a markdown table. Usage: bench/cluster.sh BUILD_DIR
set -eu
build=${1:?usage: bench/cluster.sh BUILD_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/anygpu"
h100="$here/tests/hosts/h100-8x"
ascend="$here/tests/hosts/ascend-910b-8x"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
hyperfine -N --warmup 3 --runs 30 --export-markdown "$out" \
  -n "cdi generate (h100-8x)" "$bin --root $h100 cdi generate" \
  -n "cdi generate (ascend-910b-8x)" "$bin --root $ascend cdi generate" \
  -n "slurm gres (h100-8x)" "$bin --root $h100 slurm gres" \
  -n "k8s labels (h100-8x)" "$bin --root $h100 k8s labels" \
  -n "k8s job (h100-8x)" "$bin --root $h100 k8s job --image img --gpus 8 -- python train.py" \
  >/dev/null
cat "$out"
