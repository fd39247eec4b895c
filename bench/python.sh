#!/usr/bin/env bash
# The Python layer: `import anygpu` against `import torch; torch.cuda.is_available()` (what
# experiment code runs to find its device today), and anygpu.torch.device() once torch is loaded.
# Usage: bench/python.sh [BUILD_DIR]   (prints Markdown tables)
# Targets: import anygpu < 20 ms; device() < 1 ms; Accelerator adds <= 2 % to a training step
# (bench/python_step.py, against a hand-written loop, with an A/A control).
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

command -v hyperfine >/dev/null || { echo "hyperfine missing (apt-get install hyperfine)" >&2; exit 1; }
[[ -f $build/libanygpu.so ]] || { echo "$build/libanygpu.so missing: build it first" >&2; exit 1; }
export ANYGPU_LIBRARY=$build/libanygpu.so PYTHONPATH=$here/python PYTHONDONTWRITEBYTECODE=1
unset ANYGPU_VENDOR ANYGPU_TORCH_DEVICE ANYGPU_ROOT

# Warm the page cache and byte-compile once, so the runs measure imports, not the disk.
$py -c "import anygpu, anygpu.torch" >/dev/null

hyperfine -N --warmup 3 --runs 30 --export-json "$out/1.json" \
  -n "python3 -c 'pass'" "$py -c pass" \
  -n "python3 -c 'import anygpu'" "$py -c 'import anygpu'" >/dev/null
hyperfine -N --warmup 1 --runs 10 --export-json "$out/2.json" \
  -n "python3 -c 'import torch; torch.cuda.is_available()'" \
  "$py -c 'import torch; torch.cuda.is_available()'" >/dev/null

# In-process: device() after torch is imported. The first call selects (the C ABI probes the
# host); the steady state is what a training loop pays.
inproc=$($py - <<'PY'
import timeit, time
import torch
import anygpu.torch as agt
t0 = time.perf_counter(); agt.device(); first = time.perf_counter() - t0
n = 100000
steady = min(timeit.repeat(agt.device, number=n, repeat=5)) / n
print(f"{first * 1e3:.3f} {steady * 1e6:.3f}")
PY
)
read -r first_ms steady_us <<<"$inproc"

# CPU time (user+sys) of the interpreter with and without `import anygpu`: unlike wall time it
# hardly moves when other work shares the machine. Median of 20 runs each.
cpu=$($py - <<'PY'
import resource, statistics, subprocess
def cpu_ms(code):
    out = []
    for _ in range(20):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(["/usr/bin/python3", "-c", code], check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1e3)
    return statistics.median(out)
base, imp = cpu_ms("pass"), cpu_ms("import anygpu")
print(f"{base:.1f} {imp:.1f} {imp - base:.1f}")
PY
)
read -r cpu_pass cpu_import cpu_delta <<<"$cpu"

echo "| case | mean | min | max |"
echo "|---|---|---|---|"
$py - "$out/1.json" "$out/2.json" <<'PY'
import json, sys
for r in (r for f in sys.argv[1:] for r in json.load(open(f))["results"]):
    print(f"| {r['command']} | {r['mean']*1e3:.1f} ms | {r['min']*1e3:.1f} ms | {r['max']*1e3:.1f} ms |")
PY
echo "| CPU time: python3 -c 'pass' / 'import anygpu' / the difference (median of 20) | ${cpu_pass} / ${cpu_import} / ${cpu_delta} ms | | |"
echo "| anygpu.torch.device(), first call (selects through the C ABI) | ${first_ms} ms | | |"
echo "| anygpu.torch.device(), steady state (timeit, 100k calls) | ${steady_us} µs | | |"

echo
echo "Training step through anygpu.torch.Accelerator (bench/python_step.py):"
echo
$py "$here/bench/python_step.py"
