#!/usr/bin/env bash
# Overhead of `anygpu run` over exec'ing the command directly: hyperfine medians, markdown out.
# Usage: bench/launch.sh BUILD_DIR [RUNS]
set -eu
build=${1:?usage: bench/launch.sh BUILD_DIR [RUNS]}
runs=${2:-300}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "$build/anygpu")
command -v hyperfine >/dev/null || { echo "hyperfine is required" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"  # no accelerator-config.yaml / runtime-spec.yaml here

hyperfine -N --warmup 20 --runs "$runs" --export-json "$tmp/r.json" \
  -n 'true' '/bin/true' \
  -n 'run --root cloud-vm-none' "$bin --root $here/tests/hosts/cloud-vm-none run --no-check -- /bin/true" \
  -n 'run --root h100-8x --no-libs' "$bin --root $here/tests/hosts/h100-8x --no-libs run --no-check -- /bin/true" \
  -n 'run (this host)' "$bin run --no-check -- /bin/true" \
  -n 'run --dry-run (this host)' "$bin run --no-check --dry-run -- /bin/true" >/dev/null

/usr/bin/python3 - "$tmp/r.json" <<'PY'
import json, statistics, sys
res = json.load(open(sys.argv[1]))["results"]
med = {r["command"]: statistics.median(r["times"]) * 1000 for r in res}
base = med["true"]
print("| command | median (ms) | overhead (ms) |")
print("|---|---:|---:|")
for r in res:
    name = r["command"]
    print(f"| `{name}` | {med[name]:.2f} | {med[name] - base:+.2f} |")
PY
