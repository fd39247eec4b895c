#!/usr/bin/env bash
# Cost of one `anygpu metrics` sample (discovery + every backend + rendering) on the fixture
# hosts, per output format, in one hyperfine run. Reference: `nvidia-smi --query-gpu` takes
# 7-22 ms per call and `rocm-smi`'s first call about 3 s on real hosts.
# Usage: bench/metrics.sh BUILD_DIR     (prints a markdown table; needs hyperfine)
set -euo pipefail
build=${1:?usage: bench/metrics.sh BUILD_DIR}
anygpu="$build/anygpu"
hosts="$(cd "$(dirname "$0")/.." && pwd)/tests/hosts"
[[ -x $anygpu ]] || { echo "bench/metrics.sh: $anygpu not built" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "bench/metrics.sh: hyperfine missing (apt-get install hyperfine)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
hyperfine -N --style none --warmup 3 --min-runs 20 --export-json "$out/r.json" \
  --command-name "metrics --json (mi300x-8x)" "$anygpu --root $hosts/mi300x-8x metrics --json" \
  --command-name "metrics --prometheus (mi300x-8x)" "$anygpu --root $hosts/mi300x-8x metrics --prometheus" \
  --command-name "metrics --csv (intel-max-arc)" "$anygpu --root $hosts/intel-max-arc metrics --csv" \
  --command-name "metrics (workstation-mixed)" "$anygpu --root $hosts/workstation-mixed metrics" \
  >/dev/null
/usr/bin/python3 - "$out/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print("| command | mean | σ | min | max |")
print("|---|---|---|---|---|")
for x in r:
    ms = lambda v: f"{v * 1000:.1f} ms"
    print(f"| `anygpu {x['command']}` | {ms(x['mean'])} | {ms(x['stddev'] or 0)} | {ms(x['min'])} | {ms(x['max'])} |")
PY
