#!/usr/bin/env bash
# `anygpu host-init` and `anygpu init` end to end: --apply twice beneath a root changes nothing
# the second time; init never overwrites without --force; the scaffold's contract and config
# parse with `anygpu check` and `anygpu select`.
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
[ -x "$py" ] || { echo "FAIL: $py is required"; exit 1; }

# --- host-init ---------------------------------------------------------------------------
cp -a "$hosts/h100-8x" "$tmp/root"
"$bin" --root "$tmp/root" --no-libs host-init >"$tmp/plan.txt"
check "host-init plan" 0 $?
grep -q "^\[to-do\]      vendor marker  /etc/anygpu/host.json" "$tmp/plan.txt" \
  || { echo "FAIL plan text"; cat "$tmp/plan.txt"; fail=1; }
[ ! -e "$tmp/root/etc/anygpu/host.json" ] || { echo "FAIL plan wrote a file"; fail=1; }
"$bin" --root "$tmp/root" --no-libs host-init --apply --json >"$tmp/apply1.json"
check "host-init --apply" 0 $?
files="etc/anygpu/host.json opt/gpu-config/vendor etc/security/limits.d/90-anygpu.conf"
[ -f "$tmp/root/etc/cdi/anygpu-nvidia.yaml" ] && files="$files etc/cdi/anygpu-nvidia.yaml"
for f in $files; do [ -f "$tmp/root/$f" ] || { echo "FAIL --apply did not write $f"; fail=1; }; done
grep -qx nvidia "$tmp/root/opt/gpu-config/vendor" || { echo "FAIL legacy vendor file"; fail=1; }
"$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["vendor"]=="nvidia" and len(d["devices"])==8, d' \
  "$tmp/root/etc/anygpu/host.json" || { echo "FAIL marker content"; fail=1; }
(cd "$tmp/root" && stat -c '%n %i %.9Y %s' $files) >"$tmp/before"
sleep 0.05
"$bin" --root "$tmp/root" --no-libs host-init --apply --json >"$tmp/apply2.json"
check "host-init --apply again" 0 $?
(cd "$tmp/root" && stat -c '%n %i %.9Y %s' $files) >"$tmp/after"
diff "$tmp/before" "$tmp/after" || { echo "FAIL second --apply changed files"; fail=1; }
"$py" - "$tmp/apply2.json" <<'PYEOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
states = {s["id"]: s["state"] for s in d["steps"]}
bad = {k: v for k, v in states.items() if v in ("to-do", "applied")}
if bad:
    print("FAIL second run still changes:", bad)
    sys.exit(1)
print("ok   second run:", states)
PYEOF
# A file where a directory must be: the step fails, exit 1, the path is named.
cp -a "$hosts/cloud-vm-none" "$tmp/bad"
mkdir -p "$tmp/bad/opt" && echo x >"$tmp/bad/opt/gpu-config"
"$bin" --root "$tmp/bad" --no-libs host-init --apply >/dev/null 2>"$tmp/err"
check "host-init --apply failure" 1 $?
grep -q "/opt/gpu-config/vendor" "$tmp/err" || { echo "FAIL failure message"; cat "$tmp/err"; fail=1; }

# --- init --------------------------------------------------------------------------------
"$bin" init "$tmp/exp" >"$tmp/init.txt"
check "init" 0 $?
for f in train.py runtime-spec.yaml accelerator-config.yaml Dockerfile .dockerignore \
         .github/workflows/image.yml README.md; do
  [ -f "$tmp/exp/$f" ] || { echo "FAIL init did not write $f"; fail=1; }
done
echo "# mine" >"$tmp/exp/train.py"
"$bin" init "$tmp/exp" >/dev/null 2>"$tmp/err"
check "init over existing files" 2 $?
grep -q "already has train.py, runtime-spec.yaml" "$tmp/err" || { echo "FAIL init message"; cat "$tmp/err"; fail=1; }
grep -qx "# mine" "$tmp/exp/train.py" || { echo "FAIL init overwrote train.py"; fail=1; }
"$bin" init --force "$tmp/exp" >/dev/null
check "init --force" 0 $?
"$py" -m py_compile "$tmp/exp/train.py" || { echo "FAIL train.py does not compile"; fail=1; }
"$py" -c 'import sys,yaml; yaml.safe_load(open(sys.argv[1]))' "$tmp/exp/.github/workflows/image.yml" 2>/dev/null \
  || "$py" -c 'import sys; sys.exit(0 if "matrix:" in open(sys.argv[1]).read() else 1)' "$tmp/exp/.github/workflows/image.yml" \
  || { echo "FAIL workflow"; fail=1; }

# The scaffold's contract and config, against a fake environment with a CPU torch 2.5.1:
# an "interpreter" that reports one site-packages directory (anygpu reads files, never imports).
sp="$tmp/site-packages"
mkdir -p "$sp/torch/distributed" "$sp/torch-2.5.1+cpu.dist-info"
printf "__version__ = '2.5.1+cpu'\ncuda = None\nhip = None\n" >"$sp/torch/version.py"
: >"$sp/torch/__init__.py"
printf 'Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+cpu\n\n' >"$sp/torch-2.5.1+cpu.dist-info/METADATA"
printf '#!/bin/sh\necho "%s"\n' "$sp" >"$tmp/fakepython"
chmod +x "$tmp/fakepython"
"$bin" --root "$hosts/cloud-vm-none" --no-libs check "$tmp/exp/runtime-spec.yaml" --python "$tmp/fakepython" >"$tmp/check.txt"
check "anygpu check on the scaffold's runtime-spec.yaml" 0 $?
grep -q "SUCCESS" "$tmp/check.txt" || { echo "FAIL check output"; cat "$tmp/check.txt"; fail=1; }
"$bin" --root "$hosts/cloud-vm-none" --no-libs select --config "$tmp/exp/accelerator-config.yaml" \
  --python "$tmp/fakepython" --format dotenv >"$tmp/select.txt"
check "anygpu select on the scaffold's accelerator-config.yaml" 0 $?
grep -q "ANYGPU_TORCH_DEVICE=cpu" "$tmp/select.txt" || { echo "FAIL select output"; cat "$tmp/select.txt"; fail=1; }
# A +cu build on the AMD host: the scaffold's contract catches it before anything runs.
sp2="$tmp/site-packages-cu"
mkdir -p "$sp2/torch" "$sp2/torch-2.5.1+cu121.dist-info"
printf "__version__ = '2.5.1+cu121'\ncuda = '12.1'\nhip = None\n" >"$sp2/torch/version.py"
: >"$sp2/torch/__init__.py"
printf 'Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+cu121\n\n' >"$sp2/torch-2.5.1+cu121.dist-info/METADATA"
printf '#!/bin/sh\necho "%s"\n' "$sp2" >"$tmp/fakepython-cu"
chmod +x "$tmp/fakepython-cu"
"$bin" --root "$hosts/mi300x-8x" --no-libs select --config "$tmp/exp/accelerator-config.yaml" \
  --python "$tmp/fakepython-cu" >/dev/null 2>"$tmp/err"
check "select on mi300x: the contract catches a +cu121 torch" 1 $?
exit $fail
