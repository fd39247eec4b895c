#!/usr/bin/env bash
# `anygpu run` natively with the real binary: argv byte for byte, exit status pass-through,
# 126/127, signals reaching the command, the printed plan, and every documented bad input.
set -u
bin=$(realpath "$1")
hosts=$(realpath "$2")
cpu="$hosts/cloud-vm-none"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
check() {  # check NAME EXPECTED_RC ACTUAL_RC
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
expect_in() {  # expect_in NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: '$3' not in:"; cat "$2"; fail=1; fi
}
run() { "$bin" --root "$cpu" --no-libs run --no-check "$@"; }

# The argv after -- arrives byte for byte (no shell: nothing expands).
args=('a b' "it's" '"dq"' ';' '$(id)' '`id`' '*' '' '[1,2]' '{}' '--x=1' '-v' $'tab\there' $'new\nline' '\')
run -- printf '%s\n' "${args[@]}" >"$tmp/got"
check "argv round trip status" 0 $?
printf '%s\n' "${args[@]}" >"$tmp/want"
cmp -s "$tmp/want" "$tmp/got" && echo "ok   argv byte for byte" || { echo "FAIL argv differs"; diff "$tmp/want" "$tmp/got"; fail=1; }

# The selected environment reaches the command.
run -- env >"$tmp/env"
expect_in "ANYGPU_VENDOR for CPU" "$tmp/env" "ANYGPU_VENDOR=cpu"
expect_in "dist backend for CPU" "$tmp/env" "ANYGPU_DIST_BACKEND=gloo"
"$bin" --root "$hosts/h100-8x" --no-libs run --no-check -- env >"$tmp/env8"
expect_in "CUDA_VISIBLE_DEVICES on h100-8x" "$tmp/env8" "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7"
printf 'devices: [0, 3]\n' >"$tmp/two.yaml"
"$bin" --root "$hosts/h100-8x" --no-libs run --no-check --config "$tmp/two.yaml" -- env >"$tmp/env2"
expect_in "devices [0,3] on h100-8x" "$tmp/env2" "CUDA_VISIBLE_DEVICES=0,3"

# Exit status: passed through; a signal death reads 128+N to the shell.
run -- /bin/sh -c 'exit 42'
check "exit status passes through" 42 $?
run -- /bin/false
check "exit 1 passes through" 1 $?
run -- /bin/sh -c 'kill -TERM $$'
check "death by SIGTERM" 143 $?

# 126 not executable, 127 not found.
printf 'echo hi\n' >"$tmp/noexec.sh"
chmod 644 "$tmp/noexec.sh"
run -- "$tmp/noexec.sh" 2>"$tmp/err"
check "not executable" 126 $?
printf 'echo hi\n' >"$tmp/noshebang"
chmod 755 "$tmp/noshebang"
run -- "$tmp/noshebang" 2>"$tmp/err"
check "no #! line is not run through a shell" 126 $?
run -- "$tmp" 2>"$tmp/err"
check "a directory" 126 $?
run -- anygpu-no-such-command-xyz 2>"$tmp/err"
check "not found" 127 $?
expect_in "not found message" "$tmp/err" "anygpu-no-such-command-xyz: command not found"
run -- "$tmp/missing/cmd" 2>"$tmp/err"
check "not found by path" 127 $?

# Signals reach the command: anygpu becomes it, so SIGTERM to the pid we started is its own.
"$bin" --root "$cpu" --no-libs run --no-check -- /bin/sh -c 'trap "echo got-TERM; exit 7" TERM; echo ready; while :; do sleep 0.05; done' >"$tmp/sig" &
pid=$!
for _ in $(seq 100); do grep -q ready "$tmp/sig" && break; sleep 0.05; done
kill -TERM "$pid"
wait "$pid"
check "SIGTERM handled by the command" 7 $?
expect_in "command saw SIGTERM" "$tmp/sig" "got-TERM"
# (SIGINT is ignored in background jobs of a script: only TERM and HUP can be tested here.)
"$bin" --root "$cpu" --no-libs run --no-check -- /bin/sh -c 'trap "echo got-HUP; exit 9" HUP; echo ready; while :; do sleep 0.05; done' >"$tmp/sighup" &
pid=$!
for _ in $(seq 100); do grep -q ready "$tmp/sighup" && break; sleep 0.05; done
kill -HUP "$pid"
wait "$pid"
check "SIGHUP handled by the command" 9 $?

# The plan: shell-quoted text and JSON; nothing runs.
run --dry-run -- printf '%s\n' 'a b' '$(id)' >"$tmp/plan" 
check "dry run" 0 $?
expect_in "dry run quoting" "$tmp/plan" "printf '%s"
expect_in "dry run env" "$tmp/plan" "ANYGPU_VENDOR=cpu"
"$bin" --root "$cpu" --no-libs --json run --no-check --dry-run -- printf '%s\n' 'a b' >"$tmp/plan.json"
check "dry run json" 0 $?
/usr/bin/python3 - "$tmp/plan.json" <<'PY' || fail=1
import json, sys
p = json.load(open(sys.argv[1]))
assert p["schema"] == "anygpu.plan/v1", p
assert p["argv"] == ["printf", "%s\\n", "a b"], p["argv"]
assert p["env"]["ANYGPU_VENDOR"] == "cpu", p["env"]
assert p["engine"] is None and p["devices"] == [], p
print("ok   json plan fields")
PY
"$bin" --root "$cpu" --no-libs --json run --no-check --dry-run --container img --engine docker -- true >"$tmp/c.json"
/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p["engine"]=="docker" and p["argv"][:2]==["docker","run"], p; print("ok   json container plan")' "$tmp/c.json" || fail=1

# The runtime contract is checked first (unless --no-check).
printf 'required_features:\n  - device_count_min: 1\n' >"$tmp/runtime-spec.yaml"
"$bin" --root "$cpu" --no-libs run -- /bin/true 2>"$tmp/err"
check "failed contract stops the launch" 125 $?
expect_in "contract message" "$tmp/err" "[FAILED]"
"$bin" --root "$cpu" --no-libs run --no-check -- /bin/true
check "--no-check skips it" 0 $?
"$bin" --root "$cpu" --no-libs run --spec "$tmp/missing.yaml" -- /bin/true 2>"$tmp/err"
check "missing --spec" 125 $?
rm "$tmp/runtime-spec.yaml"

# A value the planner refuses: run's own failure (125) and a message naming the problem.
run --container img --engine lxc -- true 2>"$tmp/err"
check "unknown engine (run's own failure)" 125 $?
expect_in "unknown engine message" "$tmp/err" "unknown container engine 'lxc'"
run --nproc-per-node 0 -- true 2>"$tmp/err"
check "--nproc-per-node 0" 125 $?
expect_in "nproc message" "$tmp/err" "--nproc-per-node 0"
run --nproc-per-node lots -- true 2>"$tmp/err"
check "--nproc-per-node garbage" 125 $?
run 2>"$tmp/err"
check "missing command" 125 $?
expect_in "missing command message" "$tmp/err" "no command"
run -- 2>"$tmp/err"
check "empty command after --" 125 $?
run --master-port 70000 --nproc-per-node 1 -- true 2>"$tmp/err"
check "port out of range" 125 $?
SLURM_JOB_ID=1 SLURM_JOB_NODELIST='gpu[01-' run -- true 2>"$tmp/err"
check "malformed SLURM_JOB_NODELIST" 125 $?
expect_in "nodelist message" "$tmp/err" "SLURM_JOB_NODELIST"
"$bin" --root "$tmp/nope" run -- true 2>"$tmp/err"
check "bad --root" 125 $?

exit $fail
