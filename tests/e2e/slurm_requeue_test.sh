#!/bin/bash
# The preemption recipe under a real Slurm: a batch job submitted with `sbatch --requeue` runs
# tests/python/preemptible_train.py through `anygpu run`; once it is training, `scontrol requeue`
# sends it SIGTERM, the job saves and exits, Slurm starts it again (SLURM_RESTART_COUNT=1), it
# resumes from the checkpoint and finishes with exactly the parameters and RNG draws of an
# uninterrupted run. Then `anygpu preflight` runs in a step of the same cluster.
# Usage: slurm_requeue_test.sh ANYGPU_BINARY REPO PYTHON
set -u
anygpu=${1:?usage: slurm_requeue_test.sh ANYGPU REPO PYTHON}
repo=${2:?usage: slurm_requeue_test.sh ANYGPU REPO PYTHON}
python=${3:?usage: slurm_requeue_test.sh ANYGPU REPO PYTHON}
case $anygpu in /*) ;; *) anygpu=$PWD/$anygpu ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-requeue.XXXXXX")
fail() { echo "FAIL: $*"; for f in "$tmp"/job.out "$tmp"/reference.out; do
  [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done; slurm_fail_logs; exit 1; }
# shellcheck source=tests/e2e/slurm_local.sh
. "$(dirname "$0")/slurm_local.sh"
trap 'slurm_stop; rm -rf "$tmp"' EXIT
slurm_require_tools slurmctld slurmd sbatch scontrol squeue sinfo

script=$repo/tests/python/preemptible_train.py
export PYTHONPATH=$repo/python
mkdir "$tmp/reference" "$tmp/job"
"$python" "$script" "$tmp/reference" >"$tmp/reference.out" 2>&1 || fail "uninterrupted run"

slurm_write_conf anygpu-requeue \
  "NodeName=$slurm_node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN" \
  "PartitionName=anygpu Nodes=$slurm_node Default=YES MaxTime=INFINITE State=UP"
slurm_start

cat >"$tmp/job.sh" <<JOB
#!/bin/sh
exec "$anygpu" run --no-check -- "$python" "$script" "$tmp/job" 0.25
JOB
jobid=$(sbatch --parsable --requeue --output="$tmp/job.out" --open-mode=append \
  --chdir="$tmp" "$tmp/job.sh") || fail "sbatch"

for _ in $(seq 1 120); do [ -e "$tmp/job/running-4" ] && break; sleep 0.5; done
[ -e "$tmp/job/running-4" ] || fail "the job never reached step 4"
scontrol requeue "$jobid" || fail "scontrol requeue $jobid"
# Slurm holds a requeued batch job back (Reason=BeginTime, about two minutes ahead) so its
# node can settle; the test moves the start to now once the job is pending again.
for _ in $(seq 1 60); do
  scontrol show job "$jobid" | grep -q "JobState=PENDING.*Reason=BeginTime" && break
  sleep 0.5
done
scontrol show job "$jobid" | grep -q "Restarts=1" || fail "Slurm did not count a restart"
scontrol update JobId="$jobid" StartTime=now || fail "scontrol update StartTime=now"

state=""
for _ in $(seq 1 240); do
  state=$(scontrol show job "$jobid" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  [ "$state" = COMPLETED ] && [ -e "$tmp/job/final.pt" ] && break
  sleep 0.5
done
[ -e "$tmp/job/final.pt" ] || fail "the requeued job did not finish (state '$state')"
grep -q "^preempted at step [0-9]*: saved$" "$tmp/job.out" || fail "no save on SIGTERM"
grep -q "^resumed at step [0-9]* (restart 1)$" "$tmp/job.out" || fail "no resume in restart 1"
[ "$(grep -c '^finished$' "$tmp/job.out")" = 1 ] || fail "expected one finished run"
for left in "$tmp"/job/.ckpt.partial-*; do
  [ -e "$left" ] && fail "a partial checkpoint directory was left: $left"
done
"$python" - "$tmp/reference/final.pt" "$tmp/job/final.pt" <<'PY' || fail "the resumed run differs"
import sys, torch
a, b = (torch.load(p) for p in sys.argv[1:3])
sys.exit(0 if torch.equal(a["params"], b["params"]) and torch.equal(a["rng"], b["rng"]) else 1)
PY
echo "ok: preempted and requeued, resumed to the uninterrupted result"

# The pre-job check in a Slurm step: `anygpu preflight` launches its test processes through
# run's plan for the step (here the CPU path, two processes and the gloo all-reduce).
printf 'backend: cpu\n' >"$tmp/cpu.yaml"
out=$(cd "$tmp" && timeout 120 srun -n 1 "$anygpu" preflight --json --config "$tmp/cpu.yaml" \
  --nproc-per-node 2 --python "$python" 2>"$tmp/preflight.err") ||
  { cat "$tmp/preflight.err"; echo "$out"; fail "srun anygpu preflight"; }
"$python" - "$out" <<'PY' || { cat "$tmp/preflight.err"; fail "preflight in a Slurm step: $out"; }
import json, sys
d = json.loads(sys.argv[1])
assert [x["verdict"] for x in d["devices"]] == ["ok", "ok"], d
for x in d["devices"]:
    tests = {t["name"]: t for t in x["tests"]}
    assert tests["all_reduce"]["status"] == "pass", tests["all_reduce"]
PY
echo "ok: preflight in a Slurm step, two CPU processes and the gloo all-reduce"
