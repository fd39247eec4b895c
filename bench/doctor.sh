#!/usr/bin/env bash
# `anygpu doctor` against PyTorch's own environment report, in one hyperfine run.
# Usage: bench/doctor.sh BUILD_DIR     (prints a markdown table; needs hyperfine and Debian's
# python3-torch). Target: doctor under 100 ms and at least 10x faster than collect_env.
set -euo pipefail
build=${1:?usage: bench/doctor.sh BUILD_DIR}
anygpu="$build/anygpu"
[[ -x $anygpu ]] || { echo "bench/doctor.sh: $anygpu not built" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "bench/doctor.sh: hyperfine missing (apt-get install hyperfine)" >&2; exit 2; }
/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "bench/doctor.sh: /usr/bin/python3 has no torch (apt-get install python3-torch)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# -i: doctor exits 1 when it finds errors on this host; that is a result, not a failure.
hyperfine -N -i --style none --warmup 2 --min-runs 5 --export-json "$out/r.json" \
  --command-name "anygpu doctor" "$anygpu doctor --python /usr/bin/python3" \
  --command-name "anygpu doctor --no-framework" "$anygpu doctor --no-framework" \
  --command-name "python3 -m torch.utils.collect_env" "/usr/bin/python3 -m torch.utils.collect_env" \
  >/dev/null
/usr/bin/python3 - "$out/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
ref = next(x for x in r if "collect_env" in x["command"])["mean"]
print("| command | mean | σ | min | max | vs collect_env |")
print("|---|---|---|---|---|---|")
for x in r:
    ms = lambda v: f"{v * 1000:.1f} ms"
    print(f"| `{x['command']}` | {ms(x['mean'])} | {ms(x['stddev'] or 0)} | {ms(x['min'])} | "
          f"{ms(x['max'])} | {ref / x['mean']:.1f}× faster |" if "collect_env" not in x["command"]
          else f"| `{x['command']}` | {ms(x['mean'])} | {ms(x['stddev'] or 0)} | {ms(x['min'])} | "
               f"{ms(x['max'])} | 1.0× |")
PY
