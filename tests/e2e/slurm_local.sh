# A one-node Slurm on localhost for end-to-end tests, sourced: slurmctld and slurmd in the
# foreground of this shell (auth/none, private ports, state under $tmp), stopped on exit.
#   tmp=$(mktemp -d …); source slurm_local.sh
#   slurm_write_conf NAME [slurm.conf lines…]   writes $tmp/slurm.conf, exports SLURM_CONF
#   slurm_start [LABEL]                          starts both daemons, waits for the idle node
#                                                (a gres.conf slurmd rejects keeps it down)
#   slurm_wait_state PATTERN SECONDS             e.g. 'idle', 'drained*'
# The caller defines fail() and removes $tmp; slurm_stop ends the daemons (call it first).
# shellcheck shell=bash
# shellcheck disable=SC2154  # $tmp is the caller's
slurm_pids=()
slurm_node=$(hostname -s)

slurm_require_tools() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "FAIL: $tool not installed (Debian slurm-wlm)"; exit 1; }
  done
}

slurm_free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

slurm_write_conf() {
  local name=$1 ctld_port slurmd_port
  shift
  ctld_port=$(slurm_free_port)
  slurmd_port=$(slurm_free_port)
  while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(slurm_free_port); done
  mkdir -p "$tmp/state" "$tmp/spool"
  {
    cat <<CONF
ClusterName=$name
SlurmctldHost=$slurm_node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
CONF
    printf '%s\n' "$@"
  } >"$tmp/slurm.conf"
  export SLURM_CONF=$tmp/slurm.conf
  unset SLURM_JOB_ID SLURM_JOBID SLURMD_NODENAME
}

slurm_state() { sinfo -h -N -n "$slurm_node" -o '%T' 2>/dev/null; }

slurm_wait_state() {
  local s=""
  for _ in $(seq 1 "$2"); do
    s=$(slurm_state)
    # shellcheck disable=SC2254  # the pattern is the caller's glob
    case $s in $1) return 0 ;; esac
    sleep 1
  done
  echo "node state '$s', expected '$1'"
  return 1
}

slurm_start() {
  slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
  slurm_pids+=($!)
  slurmd -D -N "$slurm_node" -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1 &
  slurm_pids+=($!)
  slurm_wait_state 'idle' 60 ||
    { cat "$tmp/slurmd.out"; fail "${1:-the node} did not come up idle (gres.conf rejected?)"; }
}

slurm_stop() {
  local p
  for p in "${slurm_pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${slurm_pids[@]}"; do wait "$p" 2>/dev/null; done
  slurm_pids=()
}

slurm_fail_logs() {
  local f
  for f in "$tmp"/slurmctld.log "$tmp"/slurmd.log; do
    [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }
  done
}
