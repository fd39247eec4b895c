#!/usr/bin/env bash
# `anygpu metrics` end to end on the fixture hosts: every format, values from the fixtures'
# metric files, promtool accepting the Prometheus text, --watch streaming and stopping on
# SIGINT, usage errors.
set -u
bin=$1
hosts=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
command -v promtool >/dev/null || { echo "FAIL: promtool is required (Debian package prometheus)"; exit 1; }
py=/usr/bin/python3

mi=$hosts/mi300x-8x
"$bin" --root "$mi" --no-libs metrics --json >"$tmp/mi.json" && ok "json exit 0" || bad "json exit"
$py - "$tmp/mi.json" <<'PY' && ok "json values" || bad "json values"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "anygpu.metrics/v1", d["schema"]
devs = d["devices"]
assert [x["index"] for x in devs] == list(range(8)), devs
busy = [0, 12, 37, 100, 5, 64, 88, 23]
for x in devs:
    assert x["vendor"] == "amd" and x["name"] == "AMD Instinct MI300X", x
    assert abs(x["utilization_ratio"] - busy[x["index"]] / 100) < 1e-9, x
    assert x["memory_total_bytes"] == 206141652992, x
    assert x["memory_used_bytes"] == 298844160 + 4096 * x["index"], x
    assert x["temperature_celsius"] == x["temperatures_celsius"]["junction"], x
    assert "edge" not in x["temperatures_celsius"], x
    assert x["power_watts"] == 137 + x["index"], x
    assert x["clocks_hertz"] == {"graphics": 132000000, "memory": 1300000000}, x
    assert "energy_joules" not in x, x
assert d["backends"] == [b for b in d["backends"] if b["up"]] and d["backends"][0]["source"] == "sysfs", d["backends"]
PY

for h in "$hosts"/*/; do
  name=$(basename "$h")
  "$bin" --root "$h" metrics --prometheus >"$tmp/$name.prom" 2>"$tmp/$name.err" || bad "prometheus $name exit"
  if promtool check metrics <"$tmp/$name.prom" >"$tmp/$name.lint" 2>&1; then ok "promtool $name"
  else bad "promtool $name"; cat "$tmp/$name.lint"; fi
  "$bin" --root "$h" metrics --csv >"$tmp/$name.csv" || bad "csv $name exit"
  "$bin" --root "$h" metrics >"$tmp/$name.txt" || bad "table $name exit"
done
grep -q '^anygpu_gpu_utilization_ratio{vendor="amd",gpu="3",pci_bus_id="0000:65:00.0",uuid="GPU-153b4f83b95dbc20",model="AMD Instinct MI300X"} 1$' "$tmp/mi300x-8x.prom" \
  && ok "prometheus utilization" || bad "prometheus utilization"
grep -q '^anygpu_backend_up{vendor="nvidia",source="nvml"} 0$' "$tmp/h100-8x.prom" \
  && ok "nvidia without NVML: backend down" || bad "nvidia backend_up"
grep -q '^anygpu_gpu_info{vendor="nvidia",gpu="7",pci_bus_id="0000:db:00.0",uuid="GPU-' "$tmp/h100-8x.prom" \
  && ok "nvidia identity" || bad "nvidia identity"
grep -q '^anygpu_gpu_power_watts{vendor="intel",gpu="0",pci_bus_id="0000:06:00.0"' "$tmp/intel-max-arc.prom" \
  && bad "intel power from one energy reading" || ok "intel: no power from a single energy reading"
grep -q '^anygpu_gpu_energy_joules_total{vendor="intel",gpu="0",' "$tmp/intel-max-arc.prom" \
  && ok "intel energy counter" || bad "intel energy"
# The enforced power limit is in every format (it was once in the JSON only).
grep -q '^anygpu_gpu_power_limit_watts{vendor="amd",gpu="3",pci_bus_id="0000:65:00.0",.*} 750$' "$tmp/mi300x-8x.prom" \
  && ok "amd power limit series" || bad "amd power limit series"
grep -q '^anygpu_gpu_power_limit_watts{vendor="intel",gpu="0",pci_bus_id="0000:06:00.0",.*} 225$' "$tmp/intel-max-arc.prom" \
  && ok "intel power limit series" || bad "intel power limit series"
grep -q ',Intel(R) Arc(TM) A770 Graphics,,,,44,,12345.678901,2000000000,,,225$' "$tmp/intel-max-arc.csv" \
  && ok "intel power limit column" || { bad "intel power limit column"; cat "$tmp/intel-max-arc.csv"; }

# CSV: the documented header, one row per device, empty cells for absent values.
head -1 "$tmp/mi300x-8x.csv" | grep -qx 'timestamp,vendor,index,pci_bus_id,uuid,name,utilization_ratio,memory_used_bytes,memory_total_bytes,temperature_celsius,power_watts,energy_joules,clock_graphics_hertz,clock_sm_hertz,clock_memory_hertz,power_limit_watts' \
  && ok "csv header" || bad "csv header"
[ "$(wc -l <"$tmp/mi300x-8x.csv")" = 9 ] && ok "csv rows" || bad "csv rows"
grep -q ',amd,3,0000:65:00.0,GPU-153b4f83b95dbc20,AMD Instinct MI300X,1,298856448,206141652992,41,140,,132000000,,1300000000,750$' "$tmp/mi300x-8x.csv" \
  && ok "csv values" || { bad "csv values"; cat "$tmp/mi300x-8x.csv"; }
grep -q '0000:65:00.0' "$tmp/mi300x-8x.txt" && ok "table" || bad "table"

# --watch streams JSON Lines until SIGINT, then exits 0.
"$bin" --root "$mi" metrics --json --watch 0.2 >"$tmp/watch.jsonl" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid; rc=$?
[ $rc = 0 ] && ok "watch exits 0 on SIGINT" || bad "watch exit $rc"
n=$(wc -l <"$tmp/watch.jsonl")
[ "$n" -ge 3 ] && ok "watch printed $n documents" || bad "watch printed $n documents"
$py -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/watch.jsonl" \
  && ok "watch lines are JSON" || bad "watch JSON lines"

# Usage errors: exit 2.
"$bin" --root "$mi" metrics --csv --prometheus >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && ok "--csv --prometheus: exit 2" || bad "--csv --prometheus exit $rc"
"$bin" --root "$mi" --json metrics --csv >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && ok "--json --csv: exit 2" || bad "--json --csv exit $rc"
"$bin" --root "$mi" metrics --watch 0 >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && ok "--watch 0: exit 2" || bad "--watch 0 exit $rc"
exit $fail
