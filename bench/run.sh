#!/usr/bin/env bash
# Benchmarks for `anygpu detect`, each against its peer measured in the same run.
# Usage: bench/run.sh [BUILD_DIR]   (prints a Markdown table; docs/benchmarks.md records one)
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/anygpu"
fixture="$here/tests/hosts/h100-8x"
py=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

command -v hyperfine >/dev/null || { echo "hyperfine missing (apt-get install hyperfine)"; exit 1; }

# name | command (run without a shell by hyperfine -N where possible)
cases=(
  "anygpu detect --json (this host)|$bin detect --json"
  "lspci -nn (this host)|lspci -nn"
  "anygpu detect --json (8x H100 fixture)|$bin --root $fixture detect --json"
  "lspci -nn (8x H100 fixture)|lspci -A linux-sysfs -O sysfs.path=$fixture/sys/bus/pci -nn"
)
cases+=(
  "anygpu check, no Python probe (8x H100 fixture)|$bin --root $fixture --no-libs check $here/bench/runtime-spec-hardware.yaml"
  "anygpu check with the Python probe (8x H100 fixture)|$bin --root $fixture --no-libs check $here/examples/runtime-spec.yaml --python $py"
)
if $py -c "import torch" 2>/dev/null; then
  cases+=("python3 -c 'import torch; torch.cuda.is_available()'|$py -c 'import torch; torch.cuda.is_available()'")
  cases+=("python3 -c 'import torch; print(torch.__version__)'|$py -c 'import torch; print(torch.__version__)'")
fi

i=0
for c in "${cases[@]}"; do
  name=${c%%|*}; cmd=${c#*|}
  runs=50; [[ $name == python3* ]] && runs=10
  hyperfine -N -i --warmup 3 --runs "$runs" --export-json "$out/$i.json" "$cmd" >/dev/null 2>&1 ||
    hyperfine -i --warmup 3 --runs "$runs" --export-json "$out/$i.json" "$cmd" >/dev/null 2>&1
  # Peak RSS: median of 5 runs of GNU time's maximum resident set size.
  for _ in 1 2 3 4 5; do /usr/bin/time -f "%M" sh -c "$cmd >/dev/null 2>&1" 2>>"$out/$i.rss" || true; done
  echo "$name" >"$out/$i.name"
  i=$((i + 1))
done

$py - "$out" "$i" <<'PY'
import json, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
rows = []
for i in range(n):
    name = open(f"{out}/{i}.name").read().strip()
    times = json.load(open(f"{out}/{i}.json"))["results"][0]["times"]
    rss = [int(x) for x in open(f"{out}/{i}.rss").read().split() if x.isdigit()]
    rows.append((name, statistics.median(times) * 1000, statistics.median(rss) / 1024))
peer = {"this host": None, "8x H100 fixture": None}
for name, ms, _ in rows:
    for k in peer:
        if name.startswith("lspci") and k in name:
            peer[k] = ms
print("| command | median wall | peak RSS | ratio to lspci -nn (same host) |")
print("|---|---:|---:|---:|")
for name, ms, rss in rows:
    ratio = ""
    for k, p in peer.items():
        if k in name and p:
            ratio = f"{ms / p:.2f}"
    if name.startswith("python3") and peer["this host"]:
        ratio = f"{ms / peer['this host']:.1f}"
    print(f"| `{name}` | {ms:.2f} ms | {rss:.1f} MiB | {ratio} |")
PY
