#!/bin/bash
# End to end with a real Slurm on localhost (slurmctld + slurmd, auth/none, private ports, temp
# state): `anygpu health --slurm` on a copy of the 8xH100 fixture whose kernel log has an Xid 79
# drains the node with a reason naming the code and the bus id; on a healthy copy it leaves the
# node idle. Then the same as the node's real HealthCheckProgram (run by slurmd with its own
# environment: SLURMD_NODENAME and no PATH), healthy first, then failing.
# Usage: health_slurm_test.sh ANYGPU_BINARY FIXTURE_HOSTS_DIR
set -u
anygpu=${1:?usage: health_slurm_test.sh ANYGPU FIXTURE_HOSTS_DIR}
hosts=${2:?usage: health_slurm_test.sh ANYGPU FIXTURE_HOSTS_DIR}
case $anygpu in /*) ;; *) anygpu=$PWD/$anygpu ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-drain.XXXXXX")
fail() { echo "FAIL: $*"; slurm_fail_logs; exit 1; }
# shellcheck source=tests/e2e/slurm_local.sh
. "$(dirname "$0")/slurm_local.sh"
trap 'slurm_stop; rm -rf "$tmp"' EXIT
slurm_require_tools slurmctld slurmd scontrol sinfo

cp -a "$hosts/h100-8x" "$tmp/healthy"
: >"$tmp/healthy/dev/kmsg"
cp -a "$hosts/h100-8x" "$tmp/sick"
printf '3,1201,5123000000,-;NVRM: Xid (PCI:0000:2a:00): 79, pid=4242, GPU has fallen off the bus.\n' \
  >"$tmp/sick/dev/kmsg"

# The HealthCheckProgram: slurmd runs it with no arguments, so a wrapper names the command, and
# the root it reads comes from a file the test switches. It records the environment it got.
# slurmd passes no SLURM_CONF, so scontrol would look for the default /etc/slurm/slurm.conf:
# the wrapper names this cluster's.
echo "$tmp/healthy" >"$tmp/hc-root"
cat >"$tmp/healthcheck" <<SCRIPT
#!/bin/sh
env >"$tmp/hc-env"
export SLURM_CONF=$tmp/slurm.conf
echo run >>"$tmp/hc-runs"
exec "$anygpu" --root "\$(cat "$tmp/hc-root")" --no-libs health --slurm
SCRIPT
chmod 755 "$tmp/healthcheck"

slurm_write_conf anygpu-drain "HealthCheckProgram=$tmp/healthcheck" "HealthCheckInterval=2" \
  "NodeName=$slurm_node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN" \
  "PartitionName=anygpu Nodes=$slurm_node Default=YES MaxTime=INFINITE State=UP"
slurm_start
node=$slurm_node
wait_state() { slurm_wait_state "$@"; }
reason() { scontrol show node "$node" | sed -n 's/^ *Reason=//p'; }
# The healthy copy, by hand: exit 0, the node untouched.
"$anygpu" --root "$tmp/healthy" --no-libs health --slurm 2>"$tmp/healthy.err"
rc=$?
[ "$rc" = 0 ] || { cat "$tmp/healthy.err"; fail "healthy copy: exit $rc, expected 0"; }
[ -s "$tmp/healthy.err" ] && { cat "$tmp/healthy.err"; fail "healthy copy said something"; }
sleep 3  # two health-check intervals with the healthy root as well
wait_state 'idle' 1 || fail "healthy node left idle"
[ -s "$tmp/hc-runs" ] || fail "slurmd never ran the HealthCheckProgram"
grep -qx "SLURMD_NODENAME=$node" "$tmp/hc-env" || { cat "$tmp/hc-env"; fail "no SLURMD_NODENAME=$node in the HealthCheckProgram's environment"; }

# The copy with an Xid 79, by hand (no SLURMD_NODENAME: the short host name): drained.
out=$("$anygpu" --root "$tmp/sick" --no-libs health --slurm --dry-run)
[ "$out" = "scontrol update NodeName=$node State=DRAIN 'Reason=anygpu: xid 0000:2a:00.0'" ] ||
  fail "dry run printed '$out'"
wait_state 'idle' 1 || fail "--dry-run changed the node"
"$anygpu" --root "$tmp/sick" --no-libs health --slurm 2>"$tmp/sick.err"
rc=$?
[ "$rc" = 1 ] || { cat "$tmp/sick.err"; fail "sick copy: exit $rc, expected 1 (drained)"; }
grep -qx "anygpu: drained $node: anygpu: xid 0000:2a:00.0" "$tmp/sick.err" ||
  { cat "$tmp/sick.err"; fail "no 'drained' line on stderr"; }
wait_state 'drained*' 10 || fail "node not drained after health --slurm"
scontrol show node "$node" | grep -q "State=[A-Z+]*DRAIN" || fail "scontrol shows no DRAIN"
case $(reason) in "anygpu: xid 0000:2a:00.0"*) ;; *) fail "reason '$(reason)'" ;; esac

# scontrol that cannot reach slurmctld: exit 3, naming scontrol.
SLURM_CONF=/nonexistent "$anygpu" --root "$tmp/sick" --no-libs health --slurm 2>"$tmp/noconf.err"
rc=$?
[ "$rc" = 3 ] && grep -q "scontrol update NodeName=$node" "$tmp/noconf.err" ||
  { cat "$tmp/noconf.err"; fail "scontrol failing: exit $rc, expected 3 naming it"; }

# As the HealthCheckProgram: resumed, with the failing root, slurmd's next check drains it.
scontrol update NodeName="$node" State=RESUME || fail "scontrol resume"
wait_state 'idle' 10 || fail "node did not resume"
: >"$tmp/hc-runs"
echo "$tmp/sick" >"$tmp/hc-root"
wait_state 'drained*' 30 || fail "the HealthCheckProgram did not drain the node"
[ -s "$tmp/hc-runs" ] || fail "drained, but not by the HealthCheckProgram"
case $(reason) in "anygpu: xid 0000:2a:00.0"*) ;; *) fail "HealthCheckProgram reason '$(reason)'" ;; esac

echo "PASS: healthy copy left $node idle (by hand and as HealthCheckProgram); the Xid 79 copy drained it by hand and as HealthCheckProgram with Reason='$(reason)'"
