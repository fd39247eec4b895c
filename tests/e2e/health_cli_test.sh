#!/usr/bin/env bash
# `anygpu health` through the real binary: exit codes (0 healthy, 1 a device critical, 2 bad
# input, 3 absent device), the anygpu.health/v1 document, the human table, and the sources it
# could not read (a missing or refused kernel log makes NVIDIA devices unknown, never ok).
set -u
bin=$1
hosts=$2
fail=0
check() {  # check NAME EXPECTED_RC ACTUAL_RC
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A clean copy: its kernel log is readable and says nothing.
cp -a "$hosts/h100-8x" "$tmp/clean"
: >"$tmp/clean/dev/kmsg"
"$bin" --root "$tmp/clean" --no-libs health --json >"$tmp/clean.json"
check "clean host" 0 $?
/usr/bin/python3 - "$tmp/clean.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "anygpu.health/v1", d["schema"]
assert len(d["devices"]) == 8 and all(x["health"] == "ok" for x in d["devices"]), d
assert all(set(x) == {"pci_bus_id", "vendor", "index", "health", "findings", "sources"}
           for x in d["devices"])
assert d["sources"] == [{"source": "kernel-log", "read": True, "detail": "/dev/kmsg"}], d["sources"]
for x in d["devices"]:
    s = {s["source"]: s for s in x["sources"]}
    assert s["pcie"]["read"] and s["pcie"]["essential"], s
    assert s["kernel-log"]["read"] and s["kernel-log"]["essential"], s
    assert s["nvml"] == {"source": "nvml", "read": False, "essential": False,
                         "reason": "disabled", "detail": "--no-libs"}, s["nvml"]
PY

# The fixture itself has no kernel log: nothing found is unknown, and says why.
"$bin" --root "$hosts/h100-8x" --no-libs health --json >"$tmp/blind.json"
check "no kernel log" 0 $?
/usr/bin/python3 - "$tmp/blind.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert all(x["health"] == "unknown" for x in d["devices"]), d
log = d["sources"][0]
assert log["source"] == "kernel-log" and not log["read"] and log["reason"] == "absent", log
for x in d["devices"]:
    s = {s["source"]: s for s in x["sources"]}
    assert s["kernel-log"]["reason"] == "absent" and s["kernel-log"]["essential"], s
PY
"$bin" --root "$hosts/h100-8x" --no-libs health >"$tmp/blind.txt"
grep -qx "not read: kernel-log (absent: /dev/kmsg: No such file or directory)" "$tmp/blind.txt" &&
  grep -q "^nvidia 0  0000:18:00.0  unknown$" "$tmp/blind.txt" &&
  grep -qx "  not read: nvml (disabled: --no-libs)" "$tmp/blind.txt" ||
  { echo "FAIL blind table"; cat "$tmp/blind.txt"; fail=1; }

# A kernel log the user may not read (mode 000; as root, without the capabilities that bypass
# file modes): refused, named, and the devices unknown.
cp -a "$tmp/clean" "$tmp/refused"
chmod 000 "$tmp/refused/dev/kmsg"
as_user=()
[ "$(id -u)" = 0 ] && as_user=(setpriv --bounding-set=-dac_override,-dac_read_search --)
"${as_user[@]}" "$bin" --root "$tmp/refused" --no-libs health --json >"$tmp/refused.json"
check "refused kernel log" 0 $?
/usr/bin/python3 - "$tmp/refused.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
log = d["sources"][0]
assert log["reason"] == "permission-denied" and "Permission denied" in log["detail"], log
assert all(x["health"] == "unknown" for x in d["devices"]), d
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
"$bin" --root "$tmp/clean" --no-libs k8s labels --health --label-prefix example.com |
  grep -qx "example.com/health=ok" || { echo "FAIL clean health label"; fail=1; }
"$bin" --root "$hosts/h100-8x" --no-libs k8s labels --health --label-prefix example.com |
  grep -qx "example.com/health=unknown" || { echo "FAIL blind health label"; fail=1; }
"$bin" --root "$tmp/sick" --no-libs k8s labels | grep -q "/health=" &&
  { echo "FAIL health label without --health"; fail=1; }
"$bin" --root "$tmp/sick" --no-libs --json k8s labels --health |
  /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["labels"]["anygpu.feature.node.kubernetes.io/health"] == "critical", d' ||
  { echo "FAIL json health label"; fail=1; }
exit $fail
