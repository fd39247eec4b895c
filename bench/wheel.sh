#!/usr/bin/env bash
# `anygpu wheel` and `anygpu host-init` against fixture hosts, wall time per call (hyperfine),
# beside what users otherwise run to learn the same: `python3 -c "import torch"`.
# Usage: bench/wheel.sh BUILD_DIR   (prints a markdown table)
set -eu
build=${1:?usage: bench/wheel.sh BUILD_DIR}
bin=$build/anygpu
hosts=$(cd "$(dirname "$0")/../tests/hosts" && pwd)
command -v hyperfine >/dev/null || { echo "hyperfine is required" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {  # run NAME COMMAND [RUNS]
  hyperfine -N --warmup 2 --runs "${3:-30}" --export-json "$tmp/r.json" "$2" >/dev/null 2>&1
  /usr/bin/python3 - "$1" "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))["results"][0]
print(f"| {sys.argv[1]} | {r['mean']*1000:.1f} | {r['stddev']*1000:.1f} |")
PY
}
echo "| command | mean ms | stddev ms |"
echo "|---|---|---|"
run "anygpu wheel (h100-8x)" "$bin --root $hosts/h100-8x --no-libs wheel --json"
run "anygpu wheel (mi300x-8x)" "$bin --root $hosts/mi300x-8x --no-libs wheel --json"
run "anygpu wheel torch==2.5 --data data/wheels.yaml" \
  "$bin --root $hosts/h100-8x --no-libs wheel torch==2.5 --data $(dirname "$0")/../data/wheels.yaml"
run "anygpu host-init (plan, h100-8x)" "$bin --root $hosts/h100-8x --no-libs host-init --json"
run "python3 -c 'import torch' (for comparison)" "/usr/bin/python3 -c 'import torch'" 5
