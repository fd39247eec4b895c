#!/bin/sh
# `anygpu cdi generate` with the host driver's user space on the 8×H100 fixture carrying mock
# driver libraries, an ld.so.cache, tools and firmware (tests/e2e/driver/make_driver_host.sh):
# ld.so.cache lookups, link resolution beneath the root and the spec. Budget: 20 ms median.
# Peer in the same run: `ldconfig -p -r ROOT`, which only prints the loader's cache — the first
# step any driver injector (nvidia-ctk's ldcache locator included) takes before it mounts a file.
# Usage: bench/driver.sh BUILD_DIR
set -eu
build=${1:?usage: bench/driver.sh BUILD_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/anygpu"
command -v hyperfine >/dev/null || { echo "bench/driver.sh: hyperfine missing" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-bench-driver.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$here/tests/e2e/driver/make_driver_host.sh" nvidia "$here/tests/hosts/h100-8x" "$tmp/h100" >/dev/null
"$bin" --root "$tmp/h100" --no-libs cdi generate 2>/dev/null | grep -q "libcuda.so.550.90.07" ||
  { echo "bench/driver.sh: the spec has no driver libraries" >&2; exit 1; }
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
hyperfine -N --warmup 3 --runs 30 --export-json "$tmp/out.json" \
  -n "cdi generate, h100-8x + mock driver" "$bin --root $tmp/h100 --no-libs cdi generate" \
  -n "cdi generate, h100-8x (no driver files)" "$bin --root $here/tests/hosts/h100-8x --no-libs cdi generate" \
  -n "ldconfig -p -r (peer)" "$ldconfig -p -r $tmp/h100" \
  >/dev/null
/usr/bin/python3 - "$tmp/out.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
peer = next(x for x in r if "peer" in x["command"])["median"]
print("| command | median | min | user + sys | vs ldconfig -p |")
print("|---|---:|---:|---:|---:|")
for x in r:
    ms = lambda v: f"{v * 1000:.2f} ms"
    print(f"| `{x['command']}` | {ms(x['median'])} | {ms(x['min'])} | "
          f"{ms(x['user'])} + {ms(x['system'])} | {x['median'] / peer:.1f}× |")
main = r[0]["median"] * 1000
print(f"{r[0]['command']}: median {main:.2f} ms (budget 20 ms)")
if main > 20:
    sys.exit("over budget")
PY
