#!/usr/bin/env bash
# The cost of running metric samplers' vendor libraries out of process: `anygpu metrics --json`
# on the 8×H100 fixture with the mock NVML with metrics (tests/mocklibs/nvml_metrics.cc) in
# the library worker, beside the same run with --no-libs and, when given, a BASELINE anygpu
# built before the samplers moved out (NVML loaded in-process), in one hyperfine run. Then the
# steady state: an exporter sampling every 0.1 s for 10 s, CPU of the exporter and its worker
# per sample (the worker is long-lived: one request line and one reply per sample).
# Usage: bench/metrics_isolation.sh BUILD_DIR [BASELINE_ANYGPU]   (markdown; needs hyperfine)
set -euo pipefail
build=${1:?usage: bench/metrics_isolation.sh BUILD_DIR [BASELINE_ANYGPU]}
baseline=${2:-}
anygpu="$build/anygpu"
mock="$build/tests/mock_nvml_metrics.so"
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$here/bench/lib.sh"
need_files bench/metrics_isolation.sh "$anygpu" "$mock"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
root=$out/h100-8x
fixture_with_library "$here" h100-8x "$mock" libnvidia-ml.so.1 "$root"
for i in 0 1 2 3 4 5 6 7; do echo "$i 4$i 50 300000 1000 1755 1755 2619"; done > "$out/values"
export MOCK_NVML_METRICS_FILE=$out/values
"$anygpu" --root "$root" metrics --json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["backends"][0]["up"] and d["devices"][0]["utilization_ratio"] == 0.4, d["backends"]' \
  || { echo "bench/metrics_isolation.sh: the mock NVML did not answer" >&2; exit 1; }
args=(--command-name "anygpu metrics --json (8x H100 fixture, mock NVML in the library worker)"
      "$anygpu --root $root metrics --json"
      --command-name "anygpu --no-libs metrics --json (8x H100 fixture)"
      "$anygpu --root $root --no-libs metrics --json")
if [[ -n $baseline ]]; then
  args+=(--command-name "baseline anygpu metrics --json (8x H100 fixture, mock NVML in-process)"
         "$baseline --root $root metrics --json")
fi
hyperfine -N --style none --warmup 5 --runs 100 --export-json "$out/r.json" "${args[@]}" >/dev/null
/usr/bin/python3 - "$out/r.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
print("| command | median wall | mean | min |")
print("|---|---:|---:|---:|")
for x in r:
    ms = lambda v: f"{v * 1000:.2f} ms"
    print(f"| `{x['command']}` | {ms(statistics.median(x['times']))} | {ms(x['mean'])} | {ms(x['min'])} |")
PY
/usr/bin/python3 - "$root" "$anygpu" ${baseline:+"$baseline"} <<'PY'
import os, subprocess, sys, time
root, binaries = sys.argv[1], sys.argv[2:]
tick = os.sysconf("SC_CLK_TCK")
def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tick
def kids(pid):
    out = []
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            out += open(f"/proc/{pid}/task/{t}/children").read().split()
        except OSError:
            pass
    return out
print("\n| exporter, 100 samples at 0.1 s (`--no-health`) | CPU per sample | children |")
print("|---|---:|---:|")
for n, anygpu in enumerate(binaries):
    p = subprocess.Popen([anygpu, "--root", root, "exporter", "--listen", "127.0.0.1:0",
                          "--interval", "0.1", "--no-health"], stderr=subprocess.PIPE)
    buf = b""
    while b"listening" not in buf:
        buf += os.read(p.stderr.fileno(), 4096)
    time.sleep(1)
    w = kids(p.pid)
    c0 = cpu(p.pid) + sum(cpu(k) for k in w)
    time.sleep(10)
    w2 = kids(p.pid)
    c1 = cpu(p.pid) + sum(cpu(k) for k in w2)
    p.terminate()
    p.wait()
    if n == 0:
        assert w == w2 and len(w) == 1, (w, w2)  # one long-lived worker throughout
    name = "worker (this build)" if n == 0 else "in-process (baseline)"
    print(f"| {name} | {1000 * (c1 - c0) / 100:.2f} ms | {len(w2)} |")
PY
