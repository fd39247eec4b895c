#!/bin/sh
# `select` and `run` latency with device locks present (issue 27: select under 50 ms at p99):
# one `anygpu run` holds 6 of the 8 GPUs of the h100-8x fixture in a private lock directory,
# then hyperfine times `select -v` (which reads the holders) and `run` of 2 devices (which
# selects around the held ones and locks), and prints p50/p99 per command.
# Usage: bench/locks.sh BUILD_DIR   (needs hyperfine)
set -eu
build=${1:?usage: bench/locks.sh BUILD_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/anygpu"
h100="$here/tests/hosts/h100-8x"
tmp=$(mktemp -d)
trap 'kill "$holder" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -m 700 "$tmp/locks"
export ANYGPU_LOCK_DIR="$tmp/locks"
printf 'devices: 6\n' >"$tmp/six.yaml"
printf 'devices: 2\n' >"$tmp/two.yaml"
"$bin" --root "$h100" --no-libs run --no-check --config "$tmp/six.yaml" -- sleep 600 &
holder=$!
sleep 0.5
hyperfine -N --warmup 5 --runs 200 --export-json "$tmp/r.json" \
  -n "select -v (6 of 8 locked)" "$bin --root $h100 --no-libs -v select --config $tmp/two.yaml" \
  -n "run 2 devices (6 of 8 locked)" "$bin --root $h100 --no-libs run --no-check --config $tmp/two.yaml -- /bin/true" \
  >/dev/null
python3 - "$tmp/r.json" <<'PY'
import json, sys
print("| command | p50 | p99 |")
print("|---|---|---|")
for r in json.load(open(sys.argv[1]))["results"]:
    t = sorted(r["times"])
    pick = lambda q: t[min(len(t) - 1, int(q * len(t)))] * 1000
    print(f"| `{r['command']}` | {pick(0.5):.1f} ms | {pick(0.99):.1f} ms |")
PY
