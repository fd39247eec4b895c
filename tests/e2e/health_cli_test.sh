#!/usr/bin/env bash
# `anygpu health` through the real binary: exit codes (0 healthy, 1 a device critical, 2 bad
# input, 3 absent device), the anygpu.health/v1 document, and the human table.
set -u
bin=$1
hosts=$2
fail=0
check() {  # check NAME EXPECTED_RC ACTUAL_RC
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bin" --root "$hosts/h100-8x" --no-libs health --json >"$tmp/clean.json"
check "clean host" 0 $?
/usr/bin/python3 - "$tmp/clean.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "anygpu.health/v1", d["schema"]
assert len(d["devices"]) == 8 and all(x["health"] == "ok" for x in d["devices"]), d
assert all(set(x) == {"pci_bus_id", "vendor", "index", "health", "findings"} for x in d["devices"])
PY

cp -a "$hosts/h100-8x" "$tmp/sick"
printf '3,7,1000000,-;NVRM: Xid (PCI:0000:2a:00): 79, pid=9, GPU has fallen off the bus.\n' >"$tmp/sick/dev/kmsg"
"$bin" --root "$tmp/sick" --no-libs health >"$tmp/sick.txt"
check "critical device" 1 $?
grep -q "^nvidia 1  0000:2a:00.0  critical" "$tmp/sick.txt" || { echo "FAIL table line"; cat "$tmp/sick.txt"; fail=1; }
grep -q "xid: Xid 79" "$tmp/sick.txt" || { echo "FAIL finding line"; fail=1; }

"$bin" --root "$tmp/sick" --no-libs health --device 0000:18:00.0 >/dev/null
check "another device selected" 0 $?
"$bin" --root "$tmp/sick" --no-libs health --device nvidia:1 --json >/dev/null
check "the sick device selected" 1 $?
"$bin" --root "$tmp/sick" --no-libs health --device 0000:ee:00.0 2>"$tmp/err"
check "absent device" 3 $?
grep -q "0000:ee:00.0" "$tmp/err" || { echo "FAIL absent device not named"; fail=1; }
"$bin" --root "$tmp/sick" --no-libs health --since nan 2>/dev/null
check "bad --since" 2 $?
"$bin" --root "$tmp/sick" --no-libs health --since 5m >/dev/null 2>&1
check "--since without uptime" 1 $?

# k8s labels --health: opt-in, the worst device's health as a label value.
"$bin" --root "$tmp/sick" --no-libs k8s labels --health >"$tmp/labels.txt"
check "k8s labels --health" 0 $?
grep -qx "anygpu.feature.node.kubernetes.io/health=critical" "$tmp/labels.txt" ||
  { echo "FAIL health label"; cat "$tmp/labels.txt"; fail=1; }
"$bin" --root "$hosts/h100-8x" --no-libs k8s labels --health --label-prefix example.com |
  grep -qx "example.com/health=ok" || { echo "FAIL clean health label"; fail=1; }
"$bin" --root "$tmp/sick" --no-libs k8s labels | grep -q "/health=" &&
  { echo "FAIL health label without --health"; fail=1; }
"$bin" --root "$tmp/sick" --no-libs --json k8s labels --health |
  /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["labels"]["anygpu.feature.node.kubernetes.io/health"] == "critical", d' ||
  { echo "FAIL json health label"; fail=1; }
exit $fail
