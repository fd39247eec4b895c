#!/usr/bin/env bash
# `anygpu wheel` end to end: fixture hosts, JSON and human output, unknown versions, a broken
# and an updated table given with --data.
set -u
bin=$1
hosts=$2
fail=0
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {  # check NAME EXPECTED_RC ACTUAL_RC
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
field() {  # field FILE KEY
  "$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}
expect_field() {  # expect_field NAME FILE KEY VALUE
  local got
  got=$(field "$2" "$3" 2>&1)
  if [ "$got" != "$4" ]; then echo "FAIL $1: $3 is '$got', expected '$4'"; fail=1; else echo "ok   $1"; fi
}
[ -x "$py" ] || { echo "FAIL: $py is required"; exit 1; }

# Newest release (2.15): a 550 driver meets CUDA 12's floor, and cu126 is its only 12.x build.
# MI300X's amdgpu 6.8.5 refuses 2.15's ROCm 7.14: the newest build it runs is 2.10's 7.0.
for case in "h100-8x cu126" "mi300x-8x rocm7.0" "intel-max-arc xpu" "cloud-vm-none cpu" \
            "workstation-mixed cu126"; do
  set -- $case
  "$bin" --root "$hosts/$1" --no-libs wheel --json >"$tmp/$1.json" 2>"$tmp/$1.err"
  check "wheel $1" 0 $?
  expect_field "wheel $1 variant" "$tmp/$1.json" variant "$2"
  expect_field "wheel $1 schema" "$tmp/$1.json" schema anygpu.wheel/v1
done
"$bin" --root "$hosts/mi300x-8x" --no-libs wheel torch==2.7.1 --json >"$tmp/mi.json"
expect_field "mi300x torch 2.7.1 (host ROCm 6.2.4)" "$tmp/mi.json" variant rocm6.2.4
expect_field "mi300x pip" "$tmp/mi.json" pip \
  "pip install torch==2.7.1 --index-url https://download.pytorch.org/whl/rocm6.2.4"
# An older amdgpu kernel driver (amdgpu-dkms 6.3.6, ROCm 6.0's: user space 5.6 to 6.2, AMD's
# support matrix) bounds the ROCm build; beyond it, upgrade the driver first.
cp -a "$hosts/mi300x-8x" "$tmp/oldkmd" && echo 6.3.6 >"$tmp/oldkmd/sys/module/amdgpu/version"
"$bin" --root "$tmp/oldkmd" --no-libs wheel torch==2.5 --json >"$tmp/oldkmd.json"
expect_field "amdgpu 6.3.6 torch 2.5" "$tmp/oldkmd.json" variant rocm6.2
"$bin" --root "$tmp/oldkmd" --no-libs wheel torch==2.9 >"$tmp/oldkmd.txt" 2>/dev/null
check "amdgpu 6.3.6 torch 2.9: a pinned release the driver cannot run" 3 $?
grep -q "upgrade the amdgpu kernel driver first (torch 2.7 rocm6.2.4 is the newest" "$tmp/oldkmd.txt" \
  && echo "ok   amdgpu 6.3.6 torch 2.9: upgrade first" \
  || { echo "FAIL amdgpu 6.3.6 torch 2.9"; cat "$tmp/oldkmd.txt"; fail=1; }
"$bin" --root "$hosts/ascend-910b-8x" --no-libs wheel torch==2.1 --json >"$tmp/npu.json"
expect_field "ascend plugin" "$tmp/npu.json" variant torch-npu

# Hygon's DTK builds follow DTK, not the upstream table: no torch version is named.
"$bin" --root "$hosts/hygon-dcu" --no-libs wheel --json >"$tmp/hy.json"
expect_field "hygon names no upstream version" "$tmp/hy.json" version None
"$bin" --root "$hosts/hygon-dcu" --no-libs wheel | head -1 | grep -qx "torch for this host (hygon): torch" \
  || { echo "FAIL hygon human line"; "$bin" --root "$hosts/hygon-dcu" --no-libs wheel | head -1; fail=1; }
# Each alternative once (intel-max-arc listed the CPU build twice).
"$bin" --root "$hosts/intel-max-arc" --no-libs wheel >"$tmp/intel.txt"
[ "$(grep -c '^  alternative cpu:' "$tmp/intel.txt")" = 1 ] || { echo "FAIL intel cpu alternative count"; cat "$tmp/intel.txt"; fail=1; }

# Human output: the commands and the reason.
"$bin" --root "$hosts/h100-8x" --no-libs wheel torch==2.5 >"$tmp/h.txt"
check "human output" 0 $?
grep -q "pip: pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124" "$tmp/h.txt" \
  || { echo "FAIL human pip line"; cat "$tmp/h.txt"; fail=1; }
grep -q "uv:  uv pip install torch==2.5.1" "$tmp/h.txt" || { echo "FAIL human uv line"; fail=1; }
grep -q "why: " "$tmp/h.txt" || { echo "FAIL human reason"; fail=1; }

# Bad input: exit 2 with the known versions / the location.
"$bin" --root "$hosts/h100-8x" --no-libs wheel torch==9.9 2>"$tmp/err" >/dev/null
check "unknown version" 2 $?
grep -q "known: 2.1, 2.2" "$tmp/err" || { echo "FAIL unknown version message"; cat "$tmp/err"; fail=1; }
"$bin" --root "$hosts/h100-8x" --no-libs wheel 'torch>=2' 2>/dev/null >/dev/null
check "specifier other than ==" 2 $?
"$bin" --root "$hosts/h100-8x" --no-libs wheel --vendor nvidai 2>/dev/null >/dev/null
check "unknown vendor" 2 $?
"$bin" --root "$hosts/h100-8x" --no-libs wheel --vendor amd 2>/dev/null >/dev/null
check "vendor without devices" 3 $?
printf 'schema: anygpu.wheels/v1\nindex_url: x/{variant}\ncuda_families:\n  - {cuda: "12", driver_min: "525.60.13"}\npackages:\n  - name: torch\n    releases:\n      - version: "2.5"\n        latest: "2.5.1"\n        variants:\n          - {name: cu124, cuda: "12.4", arches: [sm80]}\n' >"$tmp/broken.yaml"
"$bin" --root "$hosts/h100-8x" --no-libs wheel --data "$tmp/broken.yaml" 2>"$tmp/err" >/dev/null
check "broken --data" 2 $?
grep -q "broken.yaml:11:50: arches: expected sm_XY, got 'sm80'" "$tmp/err" \
  || { echo "FAIL broken --data message"; cat "$tmp/err"; fail=1; }
"$bin" --root "$hosts/h100-8x" --no-libs wheel --data "$tmp/missing.yaml" 2>/dev/null >/dev/null
check "missing --data" 2 $?

# An updated table without a rebuild: a release the built-in copy does not know.
sed 's/^packages:$/packages:/' "$(dirname "$0")/../../data/wheels.yaml" >"$tmp/new.yaml"
"$py" - "$tmp/new.yaml" <<'PYEOF'
import sys
p = sys.argv[1]
s = open(p).read()
anchor = '\n# Vendors whose'
new = ('\n      - version: "2.99"\n        latest: "2.99.0"\n        variants:\n'
       '          - {name: cu134, cuda: "13.4", arches: [sm_75, sm_80, sm_90, sm_100, sm_120]}\n'
       '          - {name: cpu}\n')
assert anchor in s
open(p, "w").write(s.replace(anchor, new + anchor, 1))
PYEOF
"$bin" --root "$hosts/h100-8x" --no-libs wheel torch==2.99 --data "$tmp/new.yaml" --json \
  >"$tmp/new.json" 2>"$tmp/new.err"
# A pinned release none of whose builds the driver runs: the document says so, the exit is 3.
check "updated --data: pinned release the driver cannot run" 3 $?
expect_field "updated table: driver 550 cannot run cu134" "$tmp/new.json" variant cpu
expect_field "updated table: runs_now false" "$tmp/new.json" runs_now False
grep -q "torch 2.99: no build of this release runs on this host's devices now" "$tmp/new.err" &&
  echo "ok   pinned release refused on stderr" ||
  { echo "FAIL pinned release: stderr was: $(cat "$tmp/new.err")"; fail=1; }
# Unpinned, the newer table's 2.99 waits for a driver upgrade: the headline is a release the
# driver runs, and 2.99 is the second, labelled line.
"$bin" --root "$hosts/h100-8x" --no-libs wheel --data "$tmp/new.yaml" --json >"$tmp/unpinned.json"
check "updated --data unpinned" 0 $?
expect_field "unpinned: runs now" "$tmp/unpinned.json" runs_now True
"$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); u=d["after_upgrade"]
assert d["variant"].startswith("cu") and d["version"] != "2.99.0", d
assert u["version"] == "2.99.0" and u["variant"] == "cu134" and "580" in u["needs"], u' \
  "$tmp/unpinned.json" && echo "ok   unpinned: 2.99 cu134 apart, after an upgrade" ||
  { echo "FAIL unpinned after_upgrade"; fail=1; }

# The same table installed without --data: ANYGPU_WHEELS names it for every command (wheel,
# check, doctor); --data still wins. Refused when others may write it, and when it is invalid.
ANYGPU_WHEELS="$tmp/new.yaml" "$bin" --root "$hosts/h100-8x" --no-libs wheel torch==2.99 --json \
  >"$tmp/env.json" 2>/dev/null
check "ANYGPU_WHEELS: the installed table's 2.99" 3 $?
expect_field "ANYGPU_WHEELS: 2.99 cu134 needs a newer driver" "$tmp/env.json" version 2.99.0
"$bin" --root "$hosts/h100-8x" --no-libs wheel torch==2.99 >/dev/null 2>&1
check "without ANYGPU_WHEELS 2.99 is unknown" 2 $?
ANYGPU_WHEELS="$tmp/new.yaml" "$bin" --root "$hosts/h100-8x" --no-libs wheel torch==2.5 \
  --data "$(dirname "$0")/../../data/wheels.yaml" --json >"$tmp/both.json"
expect_field "--data wins over ANYGPU_WHEELS" "$tmp/both.json" variant cu124
ANYGPU_WHEELS="$tmp/broken.yaml" "$bin" --root "$hosts/h100-8x" --no-libs detect >/dev/null 2>"$tmp/err"
check "ANYGPU_WHEELS invalid: every command refuses" 2 $?
grep -q "ANYGPU_WHEELS: .*broken.yaml:11:50: arches: expected sm_XY" "$tmp/err" \
  || { echo "FAIL ANYGPU_WHEELS invalid message"; cat "$tmp/err"; fail=1; }
ANYGPU_WHEELS="$tmp/nowhere.yaml" "$bin" --root "$hosts/h100-8x" --no-libs wheel >/dev/null 2>"$tmp/err"
check "ANYGPU_WHEELS missing file" 2 $?
grep -q "nowhere.yaml" "$tmp/err" || { echo "FAIL missing file message"; cat "$tmp/err"; fail=1; }
(cd "$tmp" && ANYGPU_WHEELS=new.yaml "$bin" --root "$hosts/h100-8x" --no-libs wheel >/dev/null 2>"$tmp/err")
check "ANYGPU_WHEELS relative path" 2 $?
grep -q "ANYGPU_WHEELS: not an absolute path" "$tmp/err" || { echo "FAIL relative message"; cat "$tmp/err"; fail=1; }
chmod o+w "$tmp/new.yaml"
ANYGPU_WHEELS="$tmp/new.yaml" "$bin" --root "$hosts/h100-8x" --no-libs wheel >/dev/null 2>"$tmp/err"
check "ANYGPU_WHEELS writable by others: refused" 2 $?
grep -q "refused (the ANYGPU_WHEELS file)" "$tmp/err" || { echo "FAIL refusal message"; cat "$tmp/err"; fail=1; }
chmod o-w "$tmp/new.yaml"

# A GPU the device table does not know: wheel says the architecture is unknown and takes the
# broadest build, on a driver that also runs the newest (CUDA 13.x builds have no Volta kernels).
cp -a "$hosts/nvidia-open-l40s" "$tmp/unknown"
for f in "$tmp/unknown"/sys/devices/*/*/*/device; do
  [ "$(cat "$f")" = 0x26b9 ] && echo 0x1dff >"$f"
done
sed -i 's/560\.35\.03/580.65.06/' "$tmp/unknown/proc/driver/nvidia/version" "$tmp/unknown/sys/module/nvidia/version"
"$bin" --root "$tmp/unknown" --no-libs wheel --json >"$tmp/unknown.json"
expect_field "unknown arch: broadest build" "$tmp/unknown.json" variant cu126
grep -q "architecture unknown for .*broadest architecture coverage" "$tmp/unknown.json" \
  && echo "ok   unknown arch: said" || { echo "FAIL unknown arch reason"; cat "$tmp/unknown.json"; fail=1; }
exit $fail
