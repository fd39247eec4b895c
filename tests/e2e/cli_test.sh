#!/usr/bin/env bash
# End-to-end checks of the real binary: every fixture host against its golden expected.json,
# exit codes, and this machine (which has no accelerator).
set -u
bin=$1
hosts=$2
fail=0
check() {  # check NAME EXPECTED_RC ACTUAL_RC
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for dir in "$hosts"/*/; do
  name=$(basename "$dir")
  [ -f "$dir/expected.json" ] || continue
  "$bin" --root "$dir" --no-libs detect --json >"$tmp/$name.json" 2>"$tmp/$name.err"
  check "golden $name" 0 $?
  if ! diff -u "$dir/expected.json" "$tmp/$name.json" >"$tmp/$name.diff"; then
    echo "FAIL golden $name differs:"; head -40 "$tmp/$name.diff"; fail=1
  fi
  # The environment variables mean the same as the flags.
  ANYGPU_ROOT="$dir" ANYGPU_NO_LIBS=1 "$bin" detect --json >"$tmp/$name.env.json"
  cmp -s "$tmp/$name.json" "$tmp/$name.env.json" || { echo "FAIL env vars differ from flags on $name"; fail=1; }
  "$bin" --root "$dir" --no-libs detect >"$tmp/$name.txt"
  check "human $name" 0 $?
done

# Human output names every device on one line each.
grep -c "NVIDIA H100 80GB HBM3  0000:" "$tmp/h100-8x.txt" | grep -qx 8 || { echo "FAIL h100 human lines"; fail=1; }
grep -q "CPU fallback applies" "$tmp/cloud-vm-none.txt" || { echo "FAIL cloud-vm-none: no CPU fallback line"; fail=1; }

# Exit codes.
"$bin" --root "$hosts/cloud-vm-none" detect --require-gpu >/dev/null 2>&1
check "--require-gpu without devices" 3 $?
"$bin" --root "$hosts/h100-8x" --no-libs detect --require-gpu >/dev/null 2>&1
check "--require-gpu with devices" 0 $?
"$bin" --root "$tmp/does-not-exist" detect >/dev/null 2>"$tmp/err"
check "--root missing dir" 2 $?
grep -q "does-not-exist: not a directory" "$tmp/err" || { echo "FAIL: --root error message"; cat "$tmp/err"; fail=1; }
"$bin" detect --bogus-flag >/dev/null 2>&1
check "unknown flag" 2 $?
"$bin" >/dev/null 2>&1
check "no command" 2 $?
ANYGPU_NO_LIBS=maybe "$bin" detect >/dev/null 2>"$tmp/err"
check "bad ANYGPU_NO_LIBS" 2 $?
grep -q "ANYGPU_NO_LIBS" "$tmp/err" || { echo "FAIL: ANYGPU_NO_LIBS message"; fail=1; }
# "anygpu X.Y.Z", then the git description the build was configured from, when it had one.
"$bin" --version | grep -Eq '^anygpu [0-9]+\.[0-9]+\.[0-9]+( \([0-9A-Za-z.+~-]+\))?$'
check "--version" 0 $?

# This machine: works, and says what it found.
"$bin" detect --json >"$tmp/here.json"
check "detect on this host" 0 $?
/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['schema']=='anygpu.inventory/v1'; assert d['host']['cpus']>0" "$tmp/here.json" || { echo "FAIL here.json"; fail=1; }

# The registry prints, and as JSON it carries every vendor with its sources.
"$bin" vendors --json >"$tmp/vendors.json"
check "vendors --json" 0 $?
/usr/bin/python3 - "$tmp/vendors.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
ids = [v["id"] for v in d["vendors"]]
want = "nvidia amd intel ascend mthreads cambricon hygon iluvatar metax enflame kunlunxin gaudi".split()
assert ids[:12] == want, ids  # the SPEC's twelve first; vendors added as data follow
for v in d["vendors"]:
    for field in ("pci", "drivers", "torch", "env", "k8s_resource"):
        assert field in v["sources"], (v["id"], field)
    for field in v.get("driver_files", {}):
        if field not in ("sources", "unverified"):
            assert field in v["driver_files"]["sources"], (v["id"], "driver_files", field)
nvidia = d["vendors"][0]["driver_files"]
assert nvidia["library_patterns"] == ["*.so.{driver_version}"], nvidia
assert "npu-smi" in d["vendors"][3]["driver_files"]["tools"]
assert len(d["devices"]) >= 20
PY

# gather, then replay: the copy reads the same as the original.
"$bin" --root "$hosts/mi300x-8x" --no-libs -q gather "$tmp/gathered"
check "gather" 0 $?
"$bin" --root "$tmp/gathered" --no-libs detect --json >"$tmp/replayed.json"
diff -u "$hosts/mi300x-8x/expected.json" "$tmp/replayed.json" >/dev/null || { echo "FAIL gathered tree replays differently"; fail=1; }
"$bin" --root "$hosts/mi300x-8x" --no-libs -q gather "$tmp/gathered" 2>/dev/null
check "gather into a non-empty dir" 2 $?

exit $fail
