#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (and a CUDA build of torch), in a few minutes:
#   1. build anygpu (make build);
#   2. `anygpu detect --json` with real NVML against nvidia-smi, field by field, and the same
#      inventory through the Python package (ctypes);
#   3. examples/train.py through `anygpu run` against the same loop hand-written for
#      torch.device("cuda") (bench/gpu/train_plain.py): throughput ratio, goal >= RATIO_MIN;
#   4. the cost of one NVML sample (`anygpu metrics --json`), against nvidia-smi;
#   5. the experiment layer on the GPUs (tests/python/experiment.py under `anygpu run`, two
#      processes when there are two GPUs): resume from a checkpoint in fresh processes equals
#      the uninterrupted run exactly, gather_for_metrics gives all 101 samples once, the
#      accumulated gradient equals the large-batch one;
#   6. `anygpu preflight` on every GPU, one verdict each, judged against the registry's peak;
#   7. ps (a process holding 1 GiB), metrics, health, topo, doctor and wheel as JSON;
#   8. `anygpu gather` of the host, replayed with --root.
# Usage: bench/gpu/check.sh [--cpu]    (env: PYTHON=python3 RATIO_MIN=0.99 TRIALS=3 SKIP_BUILD=)
#   --cpu: only step 5, on the CPU with gloo (no GPU needed), to try the script anywhere.
# Exit status: 0 all good; 1 a mismatch or a ratio below the goal; 2 a prerequisite is missing.
set -euo pipefail
cpu_only=
if [[ ${1:-} == --cpu ]]; then cpu_only=1; shift; fi
[[ $# -eq 0 ]] || { echo "usage: bench/gpu/check.sh [--cpu]"; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
py=${PYTHON:-python3}
ratio_min=${RATIO_MIN:-0.99}
trials=${TRIALS:-3}
bin=$here/build/anygpu
log=${OUT:-$(mktemp -d)}
failures=0

step() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }
need() { command -v "$1" >/dev/null || { echo "missing prerequisite: $1 ($2)"; exit 2; }; }

# Step 5, callable alone (--cpu): the experiment layer through `anygpu run`.
experiment() {
  local nproc=$1 config=$log/accelerator-config.yaml out=$log/experiment
  mkdir -p "$out"
  if [[ -n $cpu_only ]]; then echo "backend: cpu" >"$config"; else echo "backend: auto" >"$config"; fi
  local launch=("$bin" run --config "$config")
  ((nproc > 1)) && launch+=(--nproc-per-node "$nproc")
  for mode in full resume; do
    PYTHONPATH=$here/python "${launch[@]}" -- "$py" tests/python/experiment.py "$mode" "$out" \
      "$log/checkpoint" >"$log/experiment-$mode.txt" 2>&1 ||
      { tail -30 "$log/experiment-$mode.txt"; fail "experiment.py $mode exited non-zero"; return; }
  done
  "$py" - "$out" "$nproc" <<'PY' || fail "resume, gather or accumulation differs"
import sys, torch
out, world = sys.argv[1], int(sys.argv[2])
bad = 0
def check(what, ok, detail=""):
    global bad
    bad += not ok
    print(f"  {'ok  ' if ok else 'DIFF'} {what} {detail}")
for r in range(world):
    full = torch.load(f"{out}/full-rank{r}.pt", map_location="cpu")
    resumed = torch.load(f"{out}/resume-rank{r}.pt", map_location="cpu")
    a, b = full["training"]["params"], resumed["training"]["params"]
    check(f"rank {r}: resumed parameters equal the uninterrupted run's", torch.equal(a, b),
          f"(max |diff| {(a - b).abs().max().item():.3g})")
    seen = sorted(full["metrics"]["seen"].tolist())
    check(f"rank {r}: gather_for_metrics has each of the 101 samples once", seen == list(range(101)))
    acc = full["accumulation"]
    close = all(torch.allclose(g, w, atol=1e-5) for g, w in zip(acc["grads"], acc["reference"]))
    check(f"rank {r}: accumulated gradient equals the large-batch gradient", close)
    print(f"  rank {r}: backend {full['backend']}")
sys.exit(1 if bad else 0)
PY
}

need "$py" "set PYTHON to the interpreter with torch"
if [[ -n $cpu_only ]]; then
  echo "logs: $log"
  [[ -x $bin ]] || { echo "missing prerequisite: $bin (make build)"; exit 2; }
  step "5. experiment layer on the CPU (resume, gather, accumulation)"
  experiment 2
  step "verdict"
  if ((failures)); then echo "FAILED: $failures check(s); logs in $log"; exit 1; fi
  echo "PASSED: resume is exact, gathered metrics are whole, accumulation matches"
  exit 0
fi
need nvidia-smi "an NVIDIA driver"
"$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' ||
  { echo "torch in $py cannot use the GPU (torch.cuda.is_available() is False)"; exit 2; }
echo "logs and JSON documents: $log"

step "1. build"
if [[ -z ${SKIP_BUILD:-} ]]; then make build >"$log/build.log" 2>&1 || { tail -30 "$log/build.log"; exit 2; }; fi
"$bin" --version

step "2. anygpu detect --json (NVML) against nvidia-smi"
"$bin" detect --json >"$log/detect.json"
nvidia-smi --query-gpu=index,pci.bus_id,uuid,name,memory.total,driver_version \
  --format=csv,noheader,nounits >"$log/nvidia-smi.csv"
ANYGPU_LIBRARY=$here/build/libanygpu.so PYTHONPATH=$here/python \
  "$py" -c 'import anygpu, json; print(json.dumps(anygpu.detect()))' >"$log/detect-python.json"
"$py" - "$log/detect.json" "$log/nvidia-smi.csv" "$log/detect-python.json" <<'PY' || fail "detect differs from nvidia-smi"
import csv, json, sys
inv = json.load(open(sys.argv[1]))
smi = [[c.strip() for c in row] for row in csv.reader(open(sys.argv[2])) if row]
gpus = [d for d in inv["devices"] if d["vendor"] == "nvidia"]
bad = 0
def check(what, ours, theirs):
    global bad
    ok = ours == theirs
    bad += not ok
    print(f"  {'ok  ' if ok else 'DIFF'} {what}: anygpu={ours!r} nvidia-smi={theirs!r}")
check("GPU count", len(gpus), len(smi))
for d, (index, bus, uuid, name, mem_mib, driver) in zip(gpus, smi):
    # nvidia-smi prints an 8-digit PCI domain (00000000:18:00.0); sysfs and anygpu use 4.
    bus = bus.lower()[-12:]
    print(f" GPU {index}")
    check("index", d.get("index"), int(index))
    check("pci.bus_id", d.get("pci", {}).get("bus_id"), bus)
    check("uuid", d.get("uuid"), uuid)
    check("name", d.get("name"), name)
    check("memory.total MiB", d.get("memory_total_bytes", 0) // 2**20, int(mem_mib))
    check("driver_version", d.get("driver", {}).get("version"), driver)
    check("status", d.get("status"), "ok")
    check("sources include nvml", "nvml" in d.get("sources", []), True)
py_inv = json.load(open(sys.argv[3]))
for doc in (inv, py_inv):  # the hostname etc. are equal; only ordering-free fields matter
    doc.pop("warnings", None)
check("Python (ctypes) inventory equals the CLI's", py_inv["devices"], inv["devices"])
sys.exit(1 if bad else 0)
PY

step "3. examples/train.py through anygpu run vs the hand-written loop"
args=(--epochs 4 --samples 131072 --batch-size 1024 --hidden 1024 --workers 0)
"$bin" run --dry-run -- "$py" examples/train.py "${args[@]}" | tee "$log/plan.txt"
best() { grep -o 'throughput [0-9]*' "$1" | tail -n +2 | awk '{print $2}' | sort -n | tail -1; }
for t in $(seq "$trials"); do  # alternate, so drift (clocks, temperature) hits both sides
  PYTHONPATH=$here/python "$bin" run -- "$py" examples/train.py "${args[@]}" >"$log/anygpu-$t.txt" 2>&1 ||
    { cat "$log/anygpu-$t.txt"; fail "examples/train.py under anygpu run exited non-zero"; break; }
  PYTHONPATH=$here/python "$py" bench/gpu/train_plain.py "${args[@]}" >"$log/plain-$t.txt" 2>&1 ||
    { cat "$log/plain-$t.txt"; fail "train_plain.py exited non-zero"; break; }
  echo "  trial $t: anygpu $(best "$log/anygpu-$t.txt") samples/s, plain $(best "$log/plain-$t.txt") samples/s"
done
head -2 "$log/anygpu-1.txt" "$log/plain-1.txt" || true
grep -q "device cuda:0 precision" "$log/anygpu-1.txt" || fail "examples/train.py did not run on cuda:0"
[[ $(grep -o 'precision [a-z0-9]*' "$log/anygpu-1.txt") == $(grep -o 'precision [a-z0-9]*' "$log/plain-1.txt") ]] ||
  fail "the two loops ran in different precisions"
"$py" - "$log" "$trials" "$ratio_min" <<'PY' || fail "throughput ratio below the goal"
import re, statistics, sys, glob
log, trials, goal = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
def best(path):  # epoch 1 includes warm-up (allocator, kernels): the best later epoch counts
    rates = [float(x) for x in re.findall(r"throughput (\d+)", open(path).read())[1:]]
    return max(rates)
def losses(path):
    return [float(x) for x in re.findall(r"epoch \d+/\d+ loss ([\d.]+)", open(path).read())]
a = statistics.median(best(f"{log}/anygpu-{t}.txt") for t in range(1, trials + 1))
p = statistics.median(best(f"{log}/plain-{t}.txt") for t in range(1, trials + 1))
la = losses(f"{log}/anygpu-1.txt")
print(f"  median best-epoch throughput: anygpu {a:.0f}, plain {p:.0f} samples/s; ratio {a / p:.4f} (goal >= {goal})")
print(f"  loss per epoch (anygpu): {la}")
ok = a / p >= goal and la[-1] < la[0]
sys.exit(0 if ok else 1)
PY

step "4. cost of one NVML sample"
if "$bin" metrics --json >"$log/metrics.json" 2>"$log/metrics.err"; then
  if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 3 --runs 30 "$bin metrics --json" \
      "nvidia-smi --query-gpu=utilization.gpu,memory.used,temperature.gpu,power.draw --format=csv"
  else
    s=$(date +%s%N); for _ in $(seq 20); do "$bin" metrics --json >/dev/null; done; e=$(date +%s%N)
    echo "  anygpu metrics --json: $(( (e - s) / 20000000 )) ms per process (20 runs, no hyperfine)"
    s=$(date +%s%N)
    for _ in $(seq 20); do
      nvidia-smi --query-gpu=utilization.gpu,memory.used,temperature.gpu,power.draw --format=csv >/dev/null
    done
    e=$(date +%s%N)
    echo "  nvidia-smi --query-gpu: $(( (e - s) / 20000000 )) ms per process (20 runs)"
  fi
else
  echo "  anygpu metrics is not available in this build ($(head -1 "$log/metrics.err")); not measured"
fi

step "5. experiment layer on the GPU (resume, gather, accumulation)"
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
experiment "$((gpus >= 2 ? 2 : 1))"

step "6. anygpu preflight on every GPU (matmul, memory pattern and bandwidth, copies, all-reduce)"
s=$(date +%s%N)
PYTHONPATH=$here/python "$bin" --json preflight --python "$py" --results "$log/preflight" \
  >"$log/preflight.json" 2>"$log/preflight.err" || fail "preflight exited $? ($(tail -1 "$log/preflight.err"))"
e=$(date +%s%N)
echo "  wall: $(( (e - s) / 1000000 )) ms for $(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l) GPU(s)"
"$py" - "$log/preflight.json" <<'PY' || fail "a GPU's preflight verdict is not ok"
import json, sys
doc = json.load(open(sys.argv[1]))
bad = 0
for d in doc["devices"]:
    print(f"  {d['id']} {d['name']}: {d['verdict']}")
    for t in d["tests"]:
        exp = t.get("expected", {}).get("min")
        print(f"    {t['name']:17} {t['status']:9} {t.get('value', '-')} {t.get('unit', '')}"
              f"{f' (min {exp})' if exp is not None else ''}  {t.get('detail', '')}")
    bad += d["verdict"] != "ok" or d["id"].startswith("cpu")
sys.exit(1 if bad or not doc["devices"] else 0)
PY

step "7. ps, metrics, health, topo, doctor and wheel with a process holding the GPU"
"$py" -c 'import torch, time; x = torch.empty(2**30, dtype=torch.uint8, device="cuda"); print("held", flush=True); time.sleep(60)' \
  >"$log/holder.txt" 2>&1 &
holder=$!
for _ in $(seq 60); do grep -q held "$log/holder.txt" && break; sleep 0.5; done
for cmd in ps metrics health topo doctor wheel; do
  rc=0; "$bin" --json "$cmd" >"$log/$cmd.json" 2>"$log/$cmd.err" || rc=$?
  echo "  anygpu $cmd: exit $rc ($(wc -c <"$log/$cmd.json") bytes of JSON)"
done
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null || true
"$py" - "$log/ps.json" "$holder" <<'PY' || fail "ps did not attribute the holding process to its GPU"
import json, sys
doc = json.load(open(sys.argv[1]))
mine = [p for p in doc["processes"] if p["pid"] == int(sys.argv[2])]
print(f"  ps: {json.dumps(mine)}")
sys.exit(0 if mine and mine[0].get("devices") and mine[0].get("memory_bytes", 0) >= 2**30 else 1)
PY

step "8. gather: this host as a replayable capture"
"$bin" gather "$log/gather" >"$log/gather.txt" 2>&1 || fail "gather exited non-zero"
"$bin" --root "$log/gather" --no-libs --json detect >"$log/detect-replay.json" 2>&1 ||
  fail "the capture does not replay"
tar czf "$log/gather.tar.gz" -C "$log" gather && du -h "$log/gather.tar.gz"

step "verdict"
if ((failures)); then echo "FAILED: $failures check(s); logs in $log"; exit 1; fi
echo "PASSED: detect matches nvidia-smi; anygpu run throughput within the goal; resume exact;"
echo "preflight ok on every GPU; ps attributes a holding process"
