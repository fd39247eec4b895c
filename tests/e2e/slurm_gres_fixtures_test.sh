#!/bin/bash
# The real slurmd reads the gres.conf `anygpu slurm gres` writes for every fixture host in
# tests/hosts, mixed ones included: `slurmd -G` (print the node's GRES as slurmd configures it,
# then exit) must exit 0 with no error, list every line, agree on the environment flags
# (slurmd refuses a node whose lines of one name differ: "Flags (…) does not match env flags for
# previous GRES of same node and name") and keep every Links= list in line order (the MI210
# host's xGMI hives). Each File= becomes a real character node in a copy of the fixture (slurmd
# checks that it is one), so this needs root (mknod); Debian slurm-wlm.
# A host without an accelerator must make `slurm gres` exit 3 (nothing to describe).
# Then the links only a vendor library reports, each from a mock library installed into a copy
# of a fixture where the registry looks for it: NVLink (NVML) on h100-8x, HCCS (DCMI) on
# ascend-910b-8x, Xe Link (Level Zero's fabric) on intel-max-arc; each must write Links= that
# slurmd keeps.
# Usage: slurm_gres_fixtures_test.sh ANYGPU_BINARY FIXTURE_HOSTS_DIR [MOCK_NVML_NVLINK MOCK_DCMI [MOCK_ZE_FABRIC]]
set -u
anygpu=${1:?usage: slurm_gres_fixtures_test.sh ANYGPU FIXTURE_HOSTS_DIR}
hosts=${2:?usage: slurm_gres_fixtures_test.sh ANYGPU FIXTURE_HOSTS_DIR}
mock_nvml=${3:-} mock_dcmi=${4:-} mock_ze=${5:-}
case $anygpu in /*) ;; *) anygpu=$PWD/$anygpu ;; esac
command -v slurmd >/dev/null || { echo "FAIL: slurmd not installed (Debian slurm-wlm)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-gres.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $host: $*"; fail=1; }

checked=0 empty=0 linked=0
# check_host NAME FIXTURE_DIR [MOCK_LIBRARY PATH_IN_ROOT [VARIABLE=VALUE]]: the gres.conf
# `slurm gres` writes for a copy of the fixture (with the mock library installed there, and
# libraries loaded; else --no-libs) through slurmd -G. Returns 0 when checked.
check_host() {
  local host=$1 dir=$2 lib=${3:-} at=${4:-} var=${5:-} work rc hint node gres files multiple
  local lines f major minor out seen want_links got_links i l self flags
  local libs=(--no-libs)
  work=$tmp/$host
  mkdir -p "$work/state" "$work/spool"
  cp -a "$dir" "$work/root"
  if [ -n "$lib" ]; then
    mkdir -p "$(dirname "$work/root/$at")" && cp "$lib" "$work/root/$at" || { bad "install $lib"; return 1; }
    libs=()
  fi
  env ${var:+"$var"} "$anygpu" -q --root "$work/root" "${libs[@]}" slurm gres --output "$work/gres.conf" 2>"$work/err"
  rc=$?
  if [ "$rc" = 3 ]; then
    grep -q "no accelerator" "$work/err" || bad "exit 3 without saying why: $(cat "$work/err")"
    echo "ok   $host: no accelerator, no gres.conf (exit 3)"
    empty=$((empty + 1))
    return 1
  fi
  [ "$rc" = 0 ] || { bad "slurm gres exit $rc: $(cat "$work/err")"; return 1; }
  # What slurm.conf needs for the node, as the file's last comment says.
  hint=$(sed -n 's/^# slurm.conf: GresTypes=gpu and NodeName=\([^ ]*\) Gres=\(.*\)$/\1 \2/p' "$work/gres.conf")
  node=${hint%% *} gres=${hint#* }
  [ -n "$hint" ] || { bad "no slurm.conf hint in gres.conf"; return 1; }
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
    rm -f "$f" && mknod "$f" c "$major" "${minor:-3}" || { bad "mknod $f needs root"; return 1; }
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
    bad "slurmd -G exit $rc:"; echo "$out"; cat "$work/gres.conf.generated"; return 1
  fi
  seen=$(echo "$out" | grep -c "Gres Name=gpu ")
  [ "$seen" = "$lines" ] || { bad "slurmd -G lists $seen GRES, gres.conf has $lines:"; echo "$out"; return 1; }
  for f in $files; do
    echo "$out" | grep -q "File=$f " || { bad "slurmd -G does not list $f"; echo "$out"; return 1; }
  done
  # Links= (a host whose devices are linked, `anygpu topo`): slurmd keeps each list as written
  # and in line order, the i-th line's -1 at position i (Slurm orders GPU records by where the
  # -1 is: _sort_gpu_by_links_order, src/plugins/gres/gpu/gres_gpu.c).
  want_links=$(sed -n 's/^Name=gpu .* Links=\([^ ]*\).*/\1/p' "$work/gres.conf")
  if [ -n "$want_links" ]; then
    got_links=$(echo "$out" | sed -n 's/.*Gres Name=gpu .* Links=\([^ ]*\).*/\1/p')
    [ "$got_links" = "$want_links" ] || { bad "slurmd -G Links differ:"; echo "$out"; return 1; }
    [ "$(echo "$want_links" | wc -l)" = "$lines" ] || { bad "Links= on some lines only"; return 1; }
    i=0
    while read -r l; do
      i=$((i + 1))
      self=$(echo "$l" | tr ',' '\n' | grep -n -x -- '-1' | cut -d: -f1)
      [ "$self" = "$i" ] || { bad "line $i: Links=$l has its -1 at position ${self:-none}"; return 1; }
    done <<<"$want_links"
    linked=$((linked + 1))
  fi
  flags=$(sed -n 's/^Name=gpu .* Flags=\([^ ]*\).*/\1/p' "$work/gres.conf" | sort -u)
  [ "$(echo "$flags" | wc -l)" = 1 ] || { bad "lines carry different Flags: $flags"; return 1; }
  echo "ok   $host: slurmd -G accepts $lines line(s), Flags=${flags:-<none>}${want_links:+, Links=}"
  checked=$((checked + 1))
  [ -n "$want_links" ] || return 2
}

for dir in "$hosts"/*/; do
  [ -d "$dir/sys" ] || continue  # not a fixture tree
  check_host "$(basename "$dir")" "$dir"
done
# Links only a library reports: each case must be checked with Links= written.
library_links() {
  local host=$1
  check_host "$@"
  case $? in
    0) ;;
    2) bad "no Links= from the library" ;;
    *) ;;  # said by check_host
  esac
}
if [ -n "$mock_nvml" ]; then
  library_links h100-8x-nvlink "$hosts/h100-8x" "$mock_nvml" usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 MOCK_NVML_NVLINK=mesh
fi
if [ -n "$mock_dcmi" ]; then
  library_links ascend-910b-8x-hccs "$hosts/ascend-910b-8x" "$mock_dcmi" usr/local/Ascend/driver/lib64/driver/libdcmi.so MOCK_DCMI_TOPO=rings
fi
if [ -n "$mock_ze" ]; then
  library_links intel-max-arc-xelink "$hosts/intel-max-arc" "$mock_ze" usr/lib/x86_64-linux-gnu/libze_loader.so.1
fi
# Every fixture but the one without an accelerator, the mixed ones among them.
[ "$checked" -ge 10 ] || { echo "FAIL: only $checked fixture hosts checked"; fail=1; }
# The MI210 host's two xGMI hives.
[ "$linked" -ge 1 ] || { echo "FAIL: no fixture host wrote Links="; fail=1; }
[ -z "$mock_nvml$mock_dcmi$mock_ze" ] || [ "$linked" -ge 3 ] || { echo "FAIL: the library links wrote no Links="; fail=1; }
[ "$empty" -le 1 ] || { echo "FAIL: $empty fixture hosts without a gres.conf"; fail=1; }
[ "$fail" = 0 ] && echo "PASS: slurmd -G accepted the gres.conf of $checked fixture hosts"
exit $fail
