#!/bin/bash
# The real slurmd reads the gres.conf `anygpu slurm gres` writes for every fixture host in
# tests/hosts, mixed ones included: `slurmd -G` (print the node's GRES as slurmd configures it,
# then exit) must exit 0 with no error, list every line, agree on the environment flags
# (slurmd refuses a node whose lines of one name differ: "Flags (…) does not match env flags for
# previous GRES of same node and name") and keep every Links= list in line order (the MI210
# host's xGMI hives). Each File= becomes a real character node in a copy of the fixture (slurmd
# checks that it is one), so this needs root (mknod); Debian slurm-wlm.
# A host without an accelerator must make `slurm gres` exit 3 (nothing to describe).
# Usage: slurm_gres_fixtures_test.sh ANYGPU_BINARY FIXTURE_HOSTS_DIR
set -u
anygpu=${1:?usage: slurm_gres_fixtures_test.sh ANYGPU FIXTURE_HOSTS_DIR}
hosts=${2:?usage: slurm_gres_fixtures_test.sh ANYGPU FIXTURE_HOSTS_DIR}
case $anygpu in /*) ;; *) anygpu=$PWD/$anygpu ;; esac
command -v slurmd >/dev/null || { echo "FAIL: slurmd not installed (Debian slurm-wlm)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-gres.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $host: $*"; fail=1; }

checked=0 empty=0 linked=0
for dir in "$hosts"/*/; do
  host=$(basename "$dir")
  [ -d "$dir/sys" ] || continue  # not a fixture tree
  work=$tmp/$host
  mkdir -p "$work/state" "$work/spool"
  cp -a "$dir" "$work/root"
  "$anygpu" -q --root "$work/root" --no-libs slurm gres --output "$work/gres.conf" 2>"$work/err"
  rc=$?
  if [ "$rc" = 3 ]; then
    grep -q "no accelerator" "$work/err" || bad "exit 3 without saying why: $(cat "$work/err")"
    echo "ok   $host: no accelerator, no gres.conf (exit 3)"
    empty=$((empty + 1))
    continue
  fi
  [ "$rc" = 0 ] || { bad "slurm gres exit $rc: $(cat "$work/err")"; continue; }
  # What slurm.conf needs for the node, as the file's last comment says.
  hint=$(sed -n 's/^# slurm.conf: GresTypes=gpu and NodeName=\([^ ]*\) Gres=\(.*\)$/\1 \2/p' "$work/gres.conf")
  node=${hint%% *} gres=${hint#* }
  [ -n "$hint" ] || { bad "no slurm.conf hint in gres.conf"; continue; }
  # Each File= (and each of a MIG instance's MultipleFiles=) as a character device: DRM 226,
  # NVIDIA 195, its cap nodes the fixture's nvidia-caps 235, the rest /dev/null's numbers.
  files=$(sed -n 's/^Name=gpu .*File=\([^ ]*\).*/\1/p' "$work/gres.conf")
  multiple=$(sed -n 's/^Name=gpu .*MultipleFiles=\([^ ]*\).*/\1/p' "$work/gres.conf" | tr ',' '\n' | sort -u)
  lines=$(grep -c '^Name=gpu ' "$work/gres.conf")
  for f in $files $multiple; do
    case $f in
      */dev/dri/*) major=226 ;; */dev/nvidia-caps/*) major=235 ;; */dev/nvidia*) major=195 ;;
      *) major=1 ;;
    esac
    minor=$(echo "${f##*/}" | tr -dc 0-9)
    rm -f "$f" && mknod "$f" c "$major" "${minor:-3}" || { bad "mknod $f needs root"; continue 2; }
  done
  cat >"$work/slurm.conf" <<CONF
ClusterName=anygpu-gres
SlurmctldHost=localhost(127.0.0.1)
AuthType=auth/none
CredType=cred/none
SlurmUser=$(id -un)
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
GresTypes=gpu
NodeName=$node NodeAddr=127.0.0.1 CPUs=1 Gres=$gres
PartitionName=p Nodes=$node Default=YES
CONF
  cp "$work/gres.conf" "$work/gres.conf.generated"
  out=$(SLURM_CONF=$work/slurm.conf timeout 30 slurmd -G -N "$node" -f "$work/slurm.conf" 2>&1)
  rc=$?
  if [ "$rc" != 0 ] || echo "$out" | grep -qE "(error|fatal):"; then
    bad "slurmd -G exit $rc:"; echo "$out"; cat "$work/gres.conf.generated"; continue
  fi
  seen=$(echo "$out" | grep -c "Gres Name=gpu ")
  [ "$seen" = "$lines" ] || { bad "slurmd -G lists $seen GRES, gres.conf has $lines:"; echo "$out"; continue; }
  for f in $files; do
    echo "$out" | grep -q "File=$f " || { bad "slurmd -G does not list $f"; echo "$out"; continue 2; }
  done
  # Links= (a host whose devices are linked, `anygpu topo`): slurmd keeps each list as written
  # and in line order, the i-th line's -1 at position i (Slurm orders GPU records by where the
  # -1 is: _sort_gpu_by_links_order, src/plugins/gres/gpu/gres_gpu.c).
  want_links=$(sed -n 's/^Name=gpu .* Links=\([^ ]*\).*/\1/p' "$work/gres.conf")
  if [ -n "$want_links" ]; then
    got_links=$(echo "$out" | sed -n 's/.*Gres Name=gpu .* Links=\([^ ]*\).*/\1/p')
    [ "$got_links" = "$want_links" ] || { bad "slurmd -G Links differ:"; echo "$out"; continue; }
    [ "$(echo "$want_links" | wc -l)" = "$lines" ] || { bad "Links= on some lines only"; continue; }
    i=0
    while read -r l; do
      i=$((i + 1))
      self=$(echo "$l" | tr ',' '\n' | grep -n -x -- '-1' | cut -d: -f1)
      [ "$self" = "$i" ] || { bad "line $i: Links=$l has its -1 at position ${self:-none}"; continue 2; }
    done <<<"$want_links"
    linked=$((linked + 1))
  fi
  flags=$(sed -n 's/^Name=gpu .* Flags=\([^ ]*\).*/\1/p' "$work/gres.conf" | sort -u)
  [ "$(echo "$flags" | wc -l)" = 1 ] || { bad "lines carry different Flags: $flags"; continue; }
  echo "ok   $host: slurmd -G accepts $lines line(s), Flags=${flags:-<none>}${want_links:+, Links=}"
  checked=$((checked + 1))
done
# Every fixture but the one without an accelerator, the mixed ones among them.
[ "$checked" -ge 10 ] || { echo "FAIL: only $checked fixture hosts checked"; fail=1; }
# The MI210 host's two xGMI hives.
[ "$linked" -ge 1 ] || { echo "FAIL: no fixture host wrote Links="; fail=1; }
[ "$empty" -le 1 ] || { echo "FAIL: $empty fixture hosts without a gres.conf"; fail=1; }
[ "$fail" = 0 ] && echo "PASS: slurmd -G accepted the gres.conf of $checked fixture hosts"
exit $fail
