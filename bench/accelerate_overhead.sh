#!/usr/bin/env bash
# Step overhead of anygpu.torch.Accelerator against accelerate.Accelerator: the same loop
# (bench/accelerate_step.py) under `accelerate launch` and under `anygpu run`, alternating,
# RUNS times each; per run the median wall time per step, then the median over runs.
# Usage: bench/accelerate_overhead.sh [BUILD_DIR] [RUNS=7] [PROCESSES=1]
# Needs the current-torch venv (tools/torch_venv.sh: torch and accelerate). CPU, gloo, one
# torch thread per process. Target: anygpu <= 1.02x accelerate. Prints a Markdown table;
# exits 1 when the ratio exceeds the target, 2 when a prerequisite is missing.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
runs=${2:-7}
nproc=${3:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
py=$("$here/tools/torch_venv.sh" --path) || { echo "the current-torch venv is missing: make test creates it" >&2; exit 2; }
accelerate=$(dirname "$py")/accelerate
[[ -x $accelerate ]] || { echo "$accelerate missing (accelerate not in the venv)" >&2; exit 2; }
[[ -x $build/anygpu && -f $build/libanygpu.so ]] || { echo "$build: anygpu not built" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export ANYGPU_LIBRARY=$build/libanygpu.so ANYGPU_BINARY=$build/anygpu PYTHONPATH=$here/python \
  PYTHONDONTWRITEBYTECODE=1 OMP_NUM_THREADS=1 ACCELERATE_USE_CPU=1
unset ANYGPU_VENDOR ANYGPU_TORCH_DEVICE ANYGPU_DIST_BACKEND ANYGPU_ROOT
printf 'backend: cpu\n' > "$out/cpu.yaml"
script=$here/bench/accelerate_step.py
port=29731

# accelerate's --cpu starts one process; several CPU processes go through its torchrun path.
acc_launch=("$accelerate" launch --num_processes "$nproc" --num_machines 1 --mixed_precision no
            --dynamo_backend no)
if [[ $nproc == 1 ]]; then acc_launch+=(--cpu); else acc_launch+=(--multi_gpu); fi
agy_launch=("$build/anygpu" run --config "$out/cpu.yaml")
[[ $nproc == 1 ]] || agy_launch+=(--nproc-per-node "$nproc")

for ((i = 0; i < runs; i++)); do
  # alternate which goes first, so drift in the machine's load falls on both
  for fw in $( ((i % 2)) && echo "anygpu accelerate" || echo "accelerate anygpu"); do
    port=$((port + 1))
    if [[ $fw == accelerate ]]; then
      port_opt=(); [[ $nproc == 1 ]] || port_opt=(--main_process_port "$port")
      "${acc_launch[@]}" "${port_opt[@]}" "$script" accelerate "$out/$fw-$i.json" \
        >"$out/$fw-$i.log" 2>&1 || { cat "$out/$fw-$i.log" >&2; exit 1; }
    else
      port_opt=(); [[ $nproc == 1 ]] || port_opt=(--master-port "$port")
      "${agy_launch[@]}" "${port_opt[@]}" -- "$py" "$script" anygpu "$out/$fw-$i.json" \
        >"$out/$fw-$i.log" 2>&1 || { cat "$out/$fw-$i.log" >&2; exit 1; }
    fi
  done
done

"$py" - "$out" "$runs" "$nproc" <<'PY'
import json, statistics, sys
out, runs, nproc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
med = {}
for fw in ("accelerate", "anygpu"):
    results = [json.load(open(f"{out}/{fw}-{i}.json")) for i in range(runs)]
    assert all(r["processes"] == nproc for r in results), (fw, [r["processes"] for r in results])
    med[fw] = [r["median_step_s"] * 1e3 for r in results]
ratio = statistics.median(med["anygpu"]) / statistics.median(med["accelerate"])
# A/A: accelerate's odd runs against its even runs (the noise floor of this comparison).
aa = statistics.median(med["accelerate"][1::2]) / statistics.median(med["accelerate"][0::2])
print(f"| launcher and Accelerator ({nproc} process{'es' if nproc > 1 else ''}, {runs} runs) "
      "| median step | run medians (min-max) | ratio to accelerate |")
print("|---|---:|---:|---:|")
for fw, name in (("accelerate", "`accelerate launch`, `accelerate.Accelerator`"),
                 ("anygpu", "`anygpu run`, `anygpu.torch.Accelerator`")):
    m = statistics.median(med[fw])
    print(f"| {name} | {m:.3f} ms | {min(med[fw]):.3f}-{max(med[fw]):.3f} ms "
          f"| {m / statistics.median(med['accelerate']):.3f} |")
print(f"\nA/A (accelerate's odd runs against its even runs): {aa:.3f}")
print(f"verdict: anygpu/accelerate = {ratio:.3f} ({'met' if ratio <= 1.02 else 'NOT met'}: target <= 1.02)")
sys.exit(0 if ratio <= 1.02 else 1)
PY
