#!/usr/bin/env bash
# The cost of running vendor libraries out of process: `anygpu detect --json` on the 8×H100
# fixture with a mock NVML (tests/mocklibs/nvml_ok.cc) loaded by the library worker, beside the
# same run without libraries and `lspci -nn` as the peer, all in one hyperfine run.
# Target: detect with the worker at most half of `lspci -nn`.
# Usage: bench/isolation.sh BUILD_DIR     (prints a markdown table; needs hyperfine)
set -euo pipefail
build=${1:?usage: bench/isolation.sh BUILD_DIR}
anygpu="$build/anygpu"
mock="$build/tests/mock_nvml_ok.so"
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$here/bench/lib.sh"
need_files bench/isolation.sh "$anygpu" "$mock"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
root=$out/h100-8x
fixture_with_library "$here" h100-8x "$mock" libnvidia-ml.so.1 "$root"
"$anygpu" --root "$root" detect --json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [l["status"] for l in d["libraries"]] == ["loaded"], d["libraries"]' \
  || { echo "bench/isolation.sh: the mock NVML did not load" >&2; exit 1; }
hyperfine -N --style none --warmup 5 --runs 100 --export-json "$out/r.json" \
  --command-name "anygpu detect --json (8x H100 fixture, mock NVML in the library worker)" \
  "$anygpu --root $root detect --json" \
  --command-name "anygpu --no-libs detect --json (8x H100 fixture)" \
  "$anygpu --root $root --no-libs detect --json" \
  --command-name "lspci -nn (this host)" "lspci -nn" \
  --command-name "lspci -nn (8x H100 fixture)" \
  "lspci -A linux-sysfs -O sysfs.path=$root/sys/bus/pci -nn" >/dev/null
/usr/bin/python3 - "$out/r.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
med = {x["command"]: statistics.median(x["times"]) * 1000 for x in r}
peer = med["lspci -nn (this host)"]
print("| command | median wall | ratio to `lspci -nn` (this host) |")
print("|---|---:|---:|")
for name, ms in med.items():
    print(f"| `{name}` | {ms:.2f} ms | {ms / peer:.2f} |")
PY
