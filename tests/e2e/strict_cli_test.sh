#!/usr/bin/env bash
# No silent fallbacks, through the real binary: unknown commands, lost stdout, bad durations,
# empty roots, special files, duplicate keys, absent devices and Slurm allocations naming them.
set -u
bin=$1
hosts=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {  # check NAME EXPECTED_RC ACTUAL_RC
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
says() {  # says NAME FILE TEXT
  grep -qF -- "$3" "$2" || { echo "FAIL $1: stderr lacks '$3':"; cat "$2"; fail=1; }
}
h100="$hosts/h100-8x"

"$bin" detcet >/dev/null 2>"$tmp/err"
check "unknown command" 2 $?
says "unknown command" "$tmp/err" "unknown command 'detcet' (did you mean 'detect'?)"
"$bin" --root "$h100" --no-libs slect >/dev/null 2>"$tmp/err"
check "unknown command after global options" 2 $?
says "unknown command after global options" "$tmp/err" "did you mean 'select'?"

# A full disk (or any write error) on stdout is a failure, for every kind of command.
for cmd in "detect --json" "detect" "select" "vendors" "slurm gres" "k8s labels" "cdi generate"; do
  # shellcheck disable=SC2086
  "$bin" --root "$h100" --no-libs $cmd >/dev/full 2>"$tmp/err"
  check "$cmd > /dev/full" 1 $?
  says "$cmd > /dev/full" "$tmp/err" "cannot write to standard output"
done
"$bin" --root "$h100" --no-libs run --dry-run -- true >/dev/full 2>"$tmp/err"
check "run --dry-run > /dev/full" 125 $?

for bad in nan inf -1 0 1e999; do
  "$bin" --root "$h100" --no-libs metrics --watch "$bad" >/dev/null 2>&1
  check "metrics --watch $bad" 2 $?
done
timeout 10 "$bin" --root "$h100" --no-libs metrics --watch nan >/dev/null 2>&1
check "metrics --watch nan returns" 2 $?

"$bin" --root "" detect >/dev/null 2>"$tmp/err"
check "--root ''" 2 $?
says "--root ''" "$tmp/err" "--root: empty path"
"$bin" --lib-timeout 0 --root "$h100" detect >/dev/null 2>&1
check "--lib-timeout 0" 2 $?

# A FIFO where a file is expected: refused at once, never waited on.
mkfifo "$tmp/fifo"
timeout 10 "$bin" --root "$h100" --no-libs select --config "$tmp/fifo" >/dev/null 2>"$tmp/err"
check "select --config FIFO" 2 $?
says "select --config FIFO" "$tmp/err" "is a FIFO, not a regular file"
timeout 10 "$bin" --root "$h100" --no-libs run --config "$tmp/fifo" --dry-run -- true >/dev/null 2>&1
check "run --config FIFO" 125 $?
timeout 10 "$bin" --root "$h100" --no-libs check "$tmp/fifo" >/dev/null 2>&1
check "check FIFO" 2 $?

# Duplicate keys: the second copy is an error, not ignored.
printf 'backend: cpu\nbackend: cuda\n' >"$tmp/dup.yaml"
"$bin" --root "$h100" --no-libs select --config "$tmp/dup.yaml" >/dev/null 2>"$tmp/err"
check "duplicate key" 2 $?
says "duplicate key" "$tmp/err" "$tmp/dup.yaml:2:1: duplicate key 'backend'"

# Devices this host lacks: exit 3 naming them, never the CPU.
printf 'devices: [99]\n' >"$tmp/absent.yaml"
"$bin" --root "$h100" --no-libs select --config "$tmp/absent.yaml" >"$tmp/out" 2>"$tmp/err"
check "devices: [99]" 3 $?
says "devices: [99]" "$tmp/err" "no device 99 on this host"
[ -s "$tmp/out" ] && { echo "FAIL devices: [99] printed an environment"; fail=1; }
env -u CUDA_VISIBLE_DEVICES SLURM_JOB_ID=1 SLURM_JOB_NODELIST=n1 SLURM_STEP_GPUS=0,1,99 \
  "$bin" --root "$h100" --no-libs run --dry-run -- true >/dev/null 2>"$tmp/err"
check "SLURM_STEP_GPUS=0,1,99" 125 $?
says "SLURM_STEP_GPUS=0,1,99" "$tmp/err" "Slurm allocated GPU 99 but"

# A caller's CUDA_VISIBLE_DEVICES restricts the selection outside Slurm.
out=$(env -u SLURM_JOB_ID CUDA_VISIBLE_DEVICES=3 "$bin" --root "$h100" --no-libs select --format dotenv)
echo "$out" | grep -qx "CUDA_VISIBLE_DEVICES=3" || { echo "FAIL CUDA_VISIBLE_DEVICES=3 widened:"; echo "$out"; fail=1; }
echo "$out" | grep -qx "ANYGPU_DEVICES=0000:5d:00.0" || { echo "FAIL CUDA_VISIBLE_DEVICES=3 device:"; echo "$out"; fail=1; }

# On AMD, the caller's CUDA_VISIBLE_DEVICES/GPU_DEVICE_ORDINAL go (they would re-index HIP's).
out=$(env -u SLURM_JOB_ID CUDA_VISIBLE_DEVICES=0 GPU_DEVICE_ORDINAL=0 "$bin" --root "$hosts/mi300x-8x" --no-libs select)
echo "$out" | grep -qx "unset CUDA_VISIBLE_DEVICES GPU_DEVICE_ORDINAL" || { echo "FAIL AMD conflicting vars kept:"; echo "$out"; fail=1; }
env -u SLURM_JOB_ID CUDA_VISIBLE_DEVICES=0 GPU_DEVICE_ORDINAL=0 "$bin" --root "$hosts/mi300x-8x" --no-libs --json \
  run --dry-run -- true >"$tmp/plan.json"
python3 -c 'import json,sys; u=json.load(open(sys.argv[1]))["unset"]; sys.exit(0 if {"CUDA_VISIBLE_DEVICES","GPU_DEVICE_ORDINAL"} <= set(u) else 1)' "$tmp/plan.json" \
  || { echo "FAIL run plan keeps AMD conflicting vars:"; cat "$tmp/plan.json"; fail=1; }

exit $fail
