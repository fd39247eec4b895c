#!/bin/bash
# The job series against a real one-node Slurm: slurmctld and slurmd (proctrack/cgroup on this
# machine's cgroup v1 freezer, so a job's processes sit in .../slurm_NODE/uid_U/job_N/...) run a
# batch job allocated both GPUs of a copied hygon-dcu fixture (--gres=gpu:2) whose process
# holds only the first. `anygpu exporter --processes`, reading this machine's /proc bind-mounted
# beneath the copy, must serve anygpu_gpu_allocated_idle 1 for the job on the second GPU and not
# on the first, and no busy, energy or memory series for the job (a plain file stands in for
# the render node: no engine counters, no memory figure, and the fixture has no energy
# counter: unknown, so absent, never 0). After the job, its journal holds both GPUs and
# `anygpu report --slurm-job ID` (--json, --epilog) says gpus=2 idle_gpus=1 and leaves busy,
# energy and peak memory out. Then a job allocated both GPUs that holds neither: found by its
# cgroup, both GPUs allocated and idle.
# Usage: exporter_slurm_jobs_test.sh ANYGPU_BINARY FIXTURE_HOSTS_DIR
set -u
anygpu=${1:?usage: exporter_slurm_jobs_test.sh ANYGPU FIXTURE_HOSTS_DIR}
hosts=${2:?usage: exporter_slurm_jobs_test.sh ANYGPU FIXTURE_HOSTS_DIR}
case $anygpu in /*) ;; *) anygpu=$PWD/$anygpu ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-slurm-jobs.XXXXXX")
exporter_pid=""
fail() {
  echo "FAIL: $*"
  slurm_fail_logs
  [ -f "$tmp/exporter.err" ] && { echo "--- exporter"; cat "$tmp/exporter.err"; }
  exit 1
}
# shellcheck source=tests/e2e/slurm_local.sh
. "$(dirname "$0")/slurm_local.sh"
cleanup() {
  [ -n "$exporter_pid" ] && kill "$exporter_pid" 2>/dev/null && wait "$exporter_pid" 2>/dev/null
  [ -n "${job:-}" ] && scancel "$job" 2>/dev/null
  slurm_stop
  rm -rf "$tmp"
}
trap cleanup EXIT
slurm_require_tools slurmctld slurmd sbatch squeue scancel scontrol sinfo unshare curl
[ -w /sys/fs/cgroup/freezer ] ||
  { echo "FAIL: proctrack/cgroup needs a writable cgroup v1 freezer hierarchy (/sys/fs/cgroup/freezer)"; exit 1; }

cp -a "$hosts/hygon-dcu" "$tmp/host"
for minor in 128 129; do
  rm -f "$tmp/host/dev/dri/renderD$minor"
  mknod "$tmp/host/dev/dri/renderD$minor" c 226 "$minor" ||
    { echo "FAIL: mknod needs root (CAP_MKNOD): slurmd accepts only device nodes in File="; exit 1; }
done
"$anygpu" --root "$tmp/host" slurm gres --output "$tmp/gres.conf" || fail "slurm gres"
# Job ids from a random point: the freezer hierarchy (slurm_NODE/uid_0/job_N) is the machine's,
# and a cluster another ctest run starts on it (RESOURCE_LOCK slurm keeps one run's apart
# only) numbers its jobs from 1.
slurm_write_conf anygpu-jobs GresTypes=gpu \
  "NodeName=$slurm_node NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=gpu:k100_ai:2 State=UNKNOWN" \
  "PartitionName=anygpu Nodes=$slurm_node Default=YES MaxTime=INFINITE State=UP" \
  "FirstJobId=$((100000 + RANDOM * 8 + RANDOM % 8))"
sed -i 's|^ProctrackType=.*|ProctrackType=proctrack/cgroup|' "$tmp/slurm.conf"
printf 'CgroupPlugin=cgroup/v1\nCgroupAutomount=yes\n' >"$tmp/cgroup.conf"
slurm_start "node"

# slurmd checked that File= names device nodes; the job's process opens the first one, which
# this machine has no driver for: a plain file now stands in for it.
rm -f "$tmp/host/dev/dri/renderD128" && : >"$tmp/host/dev/dri/renderD128"
job=$(sbatch --parsable -n 1 --gres=gpu:2 -o "$tmp/job.out" \
  --wrap "exec 3<$tmp/host/dev/dri/renderD128; env | grep '^SLURM_JOB_GPUS='; sleep 60") ||
  fail "sbatch"
for _ in $(seq 60); do
  [ "$(squeue -h -j "$job" -o %T 2>/dev/null)" = RUNNING ] && break
  sleep 1
done
[ "$(squeue -h -j "$job" -o %T)" = RUNNING ] || fail "job $job did not start"
sleep 1
cat "$tmp/job.out"
grep -qx "SLURM_JOB_GPUS=0,1" "$tmp/job.out" || fail "the job's SLURM_JOB_GPUS is not 0,1"

# This machine's /proc and cgroups beneath the copy, in a mount namespace of the exporter's own.
mkdir -p "$tmp/host/sys/fs/cgroup"
start_exporter() {
  : >"$tmp/exporter.err"
  unshare -m sh -c "mount --make-rprivate / && mount --bind /proc '$tmp/host/proc' &&
    mount --rbind /sys/fs/cgroup '$tmp/host/sys/fs/cgroup' &&
    exec '$anygpu' --root '$tmp/host' --no-libs exporter --listen 127.0.0.1:0 --no-health \
      --processes --processes-interval 1 --journal-dir '$tmp/jobs'" 2>"$tmp/exporter.err" &
  exporter_pid=$!
  exporter_started=$(date +%s)
  addr=""
  for _ in $(seq 100); do
    addr=$(sed -n 's#.*listening on http://\([^ ]*\).*#\1#p' "$tmp/exporter.err")
    [ -n "$addr" ] && break
    sleep 0.2
  done
  [ -n "$addr" ] || fail "the exporter did not start"
}
start_exporter
page=""
for _ in $(seq 20); do
  page=$(curl -s "http://$addr/metrics")
  echo "$page" | grep -q "^anygpu_gpu_allocated_idle{.*job_id=\"$job\"" && break
  sleep 1
done
echo "$page" | grep -E "job_id=\"$job\"|slurm_job=\"$job\"|^anygpu_processes\{|^anygpu_job_series " | grep -v '^#'
echo "$page" | grep -qE "^anygpu_gpu_allocated_idle\{.*gpu=\"1\".*job_kind=\"slurm\",job_id=\"$job\"\} 1$" ||
  fail "GPU 1, allocated to job $job and not held, is not anygpu_gpu_allocated_idle 1"
[ "$(echo "$page" | grep -c '^anygpu_gpu_allocated_idle{')" = 1 ] ||
  fail "anygpu_gpu_allocated_idle for more than GPU 1 of job $job"
# The batch shell and its sleep both hold the descriptor; nothing holds GPU 1.
echo "$page" | grep -qE '^anygpu_processes\{.*gpu="0".*\} [1-9][0-9]*$' ||
  fail "the job's holders of GPU 0 not counted"
echo "$page" | grep -qE '^anygpu_processes\{.*gpu="1".*\} 0$' || fail "GPU 1 counted as held"
# Two entries, (job, GPU 0) held and (job, GPU 1) allocated.
echo "$page" | grep -qx 'anygpu_job_series 2' || fail "anygpu_job_series is not 2"
# Unknown is absent: no engine counters, no memory figure, no energy counter on this host.
for series in anygpu_job_gpu_busy_seconds_total anygpu_job_gpu_energy_joules_total \
  anygpu_job_gpu_memory_bytes anygpu_process_memory_bytes; do
  echo "$page" | grep -q "^$series{" && fail "$series present with nothing to measure it"
done

# Some seconds of the job under the exporter's scans, for the journal to count.
sleep 6
page=$(curl -s "http://$addr/metrics")
echo "$page" | grep -qE "^anygpu_gpu_allocated_idle\{.*gpu=\"1\".*job_id=\"$job\"\} 1$" ||
  fail "GPU 1 no longer anygpu_gpu_allocated_idle 1 while job $job runs"
[ "$(squeue -h -j "$job" -o %T)" = RUNNING ] || fail "job $job ended before the test ended it"
scancel "$job"
for _ in $(seq 30); do
  [ -z "$(squeue -h -j "$job" -o %T 2>/dev/null)" ] && break
  sleep 1
done
sleep 3  # a scan that no longer sees the job writes its journal
kill "$exporter_pid"
wait "$exporter_pid"
exporter_pid=""
watched=$(($(date +%s) - exporter_started))
[ -f "$tmp/jobs/slurm-$job.journal" ] || { ls -la "$tmp/jobs"; fail "no journal slurm-$job.journal"; }
cat "$tmp/jobs/slurm-$job.journal"
"$anygpu" --root "$tmp/host" --json report --journal-dir "$tmp/jobs" --slurm-job "$job" \
  >"$tmp/report.json" || fail "report --json"
/usr/bin/python3 - "$tmp/report.json" "$job" "$watched" <<'PY' || fail "report --json: $(cat "$tmp/report.json")"
import json, sys
doc, job, watched = json.load(open(sys.argv[1])), sys.argv[2], float(sys.argv[3])
assert doc["schema"] == "anygpu.job-report/v1", doc
assert doc["job"] == {"kind": "slurm", "id": job}, doc["job"]
devs = {d["gpu"]: d for d in doc["devices"]}
assert sorted(devs) == [0, 1], doc["devices"]
held, idle = devs[0], devs[1]
assert {held["vendor"], idle["vendor"]} == {"hygon"}, doc["devices"]
# Seen from the exporter's first scan to the job's end: the 6 s slept and more, never more
# than the exporter ran.
for d in (held, idle):
    s = d["gpu_hours"] * 3600
    assert 3 <= s <= watched + 2, (s, watched, d)
    assert d["last_seen"] >= d["first_seen"], d
assert held["never_held"] is False and held["idle_hours"] == 0, held
assert idle["never_held"] is True and abs(idle["idle_hours"] - idle["gpu_hours"]) < 1e-9, idle
assert idle["mean_busy"] == 0.0, idle  # allocated, never held: known 0
for key in ("mean_busy", "busy_seconds", "peak_memory_bytes", "energy_joules"):
    assert key not in held, (key, held)  # unknown: absent
for key in ("busy_seconds", "peak_memory_bytes", "energy_joules"):
    assert key not in idle, (key, idle)
t = doc["total"]
assert t["never_held_devices"] == 1, t
assert abs(t["gpu_hours"] - held["gpu_hours"] - idle["gpu_hours"]) < 1e-9, t
for key in ("mean_busy", "peak_memory_bytes", "energy_joules"):
    assert key not in t, (key, t)  # GPU 0's busy share is unknown: so is the job's
print("report --json: GPU 0 held %.0f s, GPU 1 allocated and never held %.0f s" %
      (held["gpu_hours"] * 3600, idle["gpu_hours"] * 3600))
PY
line=$("$anygpu" --root "$tmp/host" report --journal-dir "$tmp/jobs" --slurm-job "$job" --epilog) ||
  fail "report --epilog"
echo "$line"
echo "$line" | grep -qE "^anygpu job=slurm/$job gpus=2 gpu_hours=[0-9]+\.[0-9]{3} idle_gpus=1 idle_gpu_hours=[0-9]+\.[0-9]{3}$" ||
  fail "epilog line: $line (busy, energy and peak memory must be left out)"

# A job that holds neither of its GPUs has no process among the holders: it is found by its
# cgroup (…/job_N beneath the freezer's slurm tree), and both GPUs are allocated and idle.
start_exporter
job=$(sbatch --parsable -n 1 --gres=gpu:2 -o "$tmp/job2.out" --wrap "sleep 60") || fail "sbatch 2"
for _ in $(seq 60); do
  [ "$(squeue -h -j "$job" -o %T 2>/dev/null)" = RUNNING ] && break
  sleep 1
done
[ "$(squeue -h -j "$job" -o %T)" = RUNNING ] || fail "job $job did not start"
page=""
for _ in $(seq 20); do
  page=$(curl -s "http://$addr/metrics")
  [ "$(echo "$page" | grep -c "^anygpu_gpu_allocated_idle{.*job_id=\"$job\"} 1$")" = 2 ] && break
  sleep 1
done
echo "$page" | grep "job_id=\"$job\"" | grep -v '^#'
for gpu in 0 1; do
  echo "$page" | grep -qE "^anygpu_gpu_allocated_idle\{.*gpu=\"$gpu\".*job_kind=\"slurm\",job_id=\"$job\"\} 1$" ||
    fail "GPU $gpu of job $job, which holds no GPU, is not anygpu_gpu_allocated_idle 1"
done
echo "$page" | grep -qE '^anygpu_processes\{.*\} [1-9]' && fail "a holder counted for job $job"
scancel "$job"
# Gone before Slurm stops: a step daemon left behind keeps the test's output open.
for _ in $(seq 30); do
  [ -z "$(squeue -h -j "$job" -o %T 2>/dev/null)" ] && break
  sleep 1
done
echo "ok"
