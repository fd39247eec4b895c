#!/bin/bash
# End to end with a real Slurm on localhost: `anygpu slurm gres` writes gres.conf for a copied
# fixture host, slurmctld and slurmd start with it (auth/none, private ports, temp state),
# the node must come up idle with the Gres, a --gres step must see the devices Slurm gives
# it, and `srun -n 2 anygpu run --no-check -- env` must show each task its rank. Then a mixed
# NVIDIA+AMD node: one set of environment flags, accepted, no misread variable in a step, and
# `anygpu run` in a step of either Type drives that Type's GPU. Then a MIG node: one line per
# instance, accepted, and `anygpu run` in a step on an instance names that instance to CUDA.
# Then an AMD CPX node: one line per partition, accepted, and a step's partitions chosen.
# Then an Intel node with tiled cards and one with SR-IOV VFs, and an Ascend node with vNPUs:
# each comes up idle, and `anygpu run` in a step drives what Slurm allocated.
# Usage: cluster_slurm_test.sh ANYGPU_BINARY FIXTURE_HOSTS_DIR MOCK_NVML_MIG_SO
set -u
anygpu=${1:?usage: cluster_slurm_test.sh ANYGPU FIXTURE_HOSTS_DIR MOCK_NVML_MIG_SO}
hosts=${2:?usage: cluster_slurm_test.sh ANYGPU FIXTURE_HOSTS_DIR MOCK_NVML_MIG_SO}
mock_nvml_mig=${3:?usage: cluster_slurm_test.sh ANYGPU FIXTURE_HOSTS_DIR MOCK_NVML_MIG_SO}
case $anygpu in /*) ;; *) anygpu=$PWD/$anygpu ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-slurm.XXXXXX")
fail() { echo "FAIL: $*"; slurm_fail_logs; exit 1; }
# shellcheck source=tests/e2e/slurm_local.sh
. "$(dirname "$0")/slurm_local.sh"
trap 'slurm_stop; rm -rf "$tmp"' EXIT
# The same node again with other Gres: a fresh state directory, so slurmctld keeps no record of
# the previous node's.
# Each listed file of a fixture copy made a character node (slurmd accepts only those in File=);
# the major only needs to be a character device's: nothing opens them.
char_nodes() {
  local major=$1 f minor
  shift
  for f in "$@"; do
    minor=${f##*[!0-9]}
    rm -f "$f"
    mknod "$f" c "$major" "$minor" || fail "mknod $f"
  done
}
renode() {
  mkdir -p "$tmp/state-$1"
  sed -i -e "s|^StateSaveLocation=.*|StateSaveLocation=$tmp/state-$1|" \
    -e "s|^NodeName=.*|NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=$2 State=UNKNOWN|" \
    "$tmp/slurm.conf"
  : >"$tmp/slurmd.log"
}
# The node again with GRES, started, and up without a drain.
up_idle() {
  local name=$1 gres=$2 label=$3 show
  renode "$name" "$gres"
  slurm_start "$label"
  show=$(scontrol show node "$node") || fail "scontrol show node ($label)"
  echo "$show" | grep -qi "drain" && { echo "$show"; fail "$label drained"; }
}
slurm_require_tools slurmctld slurmd srun scontrol sinfo

# A copy of the fixture; gres.conf names its nodes there. slurmd checks that every File= is
# a character or block device ("is not a valid character or block device, fix your
# gres.conf") and only then hands the devices to jobs, so the two render nodes become real
# DRM character nodes (major 226) in the copy: nothing opens them.
cp -a "$hosts/hygon-dcu" "$tmp/host"
for minor in 128 129; do
  rm -f "$tmp/host/dev/dri/renderD$minor"
  mknod "$tmp/host/dev/dri/renderD$minor" c 226 "$minor" ||
    { echo "FAIL: mknod needs root (CAP_MKNOD): slurmd accepts only device nodes in File="; exit 1; }
done
"$anygpu" --root "$tmp/host" slurm gres --output "$tmp/gres.conf" || fail "slurm gres"
grep -q "^AutoDetect=off$" "$tmp/gres.conf" || fail "no AutoDetect=off in gres.conf"
lines=$(grep -c "^Name=gpu Type=k100_ai File=$tmp/host/dev/dri/renderD12[89] Flags=amd_gpu_env$" "$tmp/gres.conf")
[ "$lines" = 2 ] || { cat "$tmp/gres.conf"; fail "expected two K100 lines"; }

slurm_write_conf anygpu-test GresTypes=gpu \
  "NodeName=$slurm_node NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=gpu:k100_ai:2 State=UNKNOWN" \
  "PartitionName=anygpu Nodes=$slurm_node Default=YES MaxTime=INFINITE State=UP"
node=$slurm_node
cp "$tmp/gres.conf" "$tmp/gres.conf.generated"

slurm_start "node"
show=$(scontrol show node "$node") || fail "scontrol show node"
echo "$show" | grep -q "Gres=gpu:k100_ai:2" || { echo "$show"; fail "node lacks Gres=gpu:k100_ai:2"; }
echo "$show" | grep -qi "drain" && { echo "$show"; fail "node drained"; }
grep -q "not a valid character or block device" "$tmp/slurmd.log" && fail "slurmd rejected a File="

# Slurm hands a --gres step the devices and says which (SLURM_STEP_GPUS / visible devices).
step_env=$(timeout 60 srun -n 1 --gres=gpu:2 env 2>"$tmp/srun-gres.err") ||
  { cat "$tmp/srun-gres.err"; fail "srun --gres=gpu:2"; }
gpus=$(echo "$step_env" | sed -n 's/^SLURM_STEP_GPUS=//p')
[ "$gpus" = "0,1" ] || fail "SLURM_STEP_GPUS='$gpus', expected 0,1"
# Flags=amd_gpu_env (gres.conf(5)): ROCR_VISIBLE_DEVICES alone. With CUDA_VISIBLE_DEVICES as
# well, ROCm would index the second into what the first left and find no device.
echo "$step_env" | grep -qx "ROCR_VISIBLE_DEVICES=0,1" || { echo "$step_env" | grep VISIBLE; fail "no ROCR_VISIBLE_DEVICES=0,1"; }
echo "$step_env" | grep -q "^CUDA_VISIBLE_DEVICES=" && fail "CUDA_VISIBLE_DEVICES set beside ROCR_ for an AMD-class gres"

# Two tasks of one step: anygpu run derives the torch.distributed environment from Slurm's.
out=$(timeout 120 srun -n 2 "$anygpu" run --no-check -- env 2>"$tmp/srun.err") ||
  { cat "$tmp/srun.err"; fail "srun -n 2 anygpu run"; }
for want in "RANK=0" "RANK=1" "LOCAL_RANK=0" "LOCAL_RANK=1"; do
  echo "$out" | grep -qx "$want" || { echo "$out" | grep -E 'RANK|WORLD|MASTER'; fail "no $want"; }
done
[ "$(echo "$out" | grep -cx 'WORLD_SIZE=2')" = 2 ] || fail "WORLD_SIZE=2 not in both tasks"
[ "$(echo "$out" | grep -cx "MASTER_ADDR=$node")" = 2 ] || fail "MASTER_ADDR=$node not in both tasks"
port=$(echo "$out" | sed -n 's/^MASTER_PORT=//p' | sort -u)
[ "$(echo "$port" | wc -l)" = 1 ] && [ "$port" -ge 20000 ] && [ "$port" -lt 30000 ] ||
  fail "MASTER_PORT '$port' not one value in 20000-29999"

# A node with GPUs of two vendors (workstation-mixed: an RTX 4090 and an RX 7900). slurmd takes
# one set of environment flags per node and GRES name, so every line carries no_gpu_env: the
# daemons must accept the file, and a step on the AMD GPU must get SLURM_STEP_GPUS but neither
# CUDA_VISIBLE_DEVICES (HIP reads it too) nor ROCR_VISIBLE_DEVICES.
slurm_stop
cp -a "$hosts/workstation-mixed" "$tmp/mixed"
rm -f "$tmp/mixed/dev/nvidia0" "$tmp/mixed/dev/dri/renderD128"
mknod "$tmp/mixed/dev/nvidia0" c 195 0 && mknod "$tmp/mixed/dev/dri/renderD128" c 226 128 ||
  fail "mknod in the mixed host"
"$anygpu" --root "$tmp/mixed" slurm gres --output "$tmp/gres.conf" 2>/dev/null || fail "slurm gres (mixed)"
[ "$(grep -c '^Name=gpu .* Flags=no_gpu_env$' "$tmp/gres.conf")" = 2 ] ||
  { cat "$tmp/gres.conf"; fail "mixed node: expected no_gpu_env on both lines"; }
renode mixed gpu:rtx_4090:1,gpu:rx_7900:1
slurm_start "mixed node"
amd_env=$(timeout 60 srun -n 1 --gres=gpu:rx_7900:1 env 2>"$tmp/srun-mixed.err") ||
  { cat "$tmp/srun-mixed.err"; fail "srun --gres=gpu:rx_7900:1"; }
echo "$amd_env" | grep -q "^SLURM_STEP_GPUS=." || { echo "$amd_env" | grep GPU; fail "no SLURM_STEP_GPUS on the mixed node"; }
for v in CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES ZE_AFFINITY_MASK GPU_DEVICE_ORDINAL; do
  echo "$amd_env" | grep -q "^$v=" && fail "$v set for a step on the mixed node"
done
mixed_gpus=$(echo "$amd_env" | sed -n 's/^SLURM_STEP_GPUS=//p')
# slurmd numbers the node's GPUs by gres.conf line across Types (the RX 7900 is line 2, so 1,
# while its AMD index is 0): `anygpu run` in each step must drive the GPU Slurm gave it.
for want in "rx_7900 amd 0000:04:00.0" "rtx_4090 nvidia 0000:01:00.0"; do
  read -r type vendor bus <<<"$want"
  got=$(timeout 60 srun -n 1 --gres=gpu:"$type":1 "$anygpu" --root "$tmp/mixed" --no-libs run \
    --no-check -- env 2>"$tmp/srun-run-mixed.err") ||
    { cat "$tmp/srun-run-mixed.err"; fail "srun --gres=gpu:$type:1 anygpu run on the mixed node"; }
  if ! echo "$got" | grep -qx "ANYGPU_VENDOR=$vendor" || ! echo "$got" | grep -qx "ANYGPU_DEVICES=$bus"; then
    echo "$got" | grep -E '^(ANYGPU|SLURM_STEP_GPUS|[A-Z_]*VISIBLE)'
    fail "$type step: anygpu run did not drive $vendor $bus"
  fi
done

# A MIG node (h100-8x-mig: 11 instances on GPUs 0-2, GPUs 3-7 whole): one line per instance
# with MultipleFiles= (its parent and GI/CI cap nodes, facts F-21), made real character nodes
# with the numbers the fixture's procfs gives; the node must come up idle with every Type and
# `anygpu run` in a step on one instance must drive exactly that instance.
slurm_stop
cp -a "$hosts/h100-8x-mig" "$tmp/mig"
for g in 0 1 2 3 4 5 6 7; do
  rm -f "$tmp/mig/dev/nvidia$g"
  mknod "$tmp/mig/dev/nvidia$g" c 195 "$g" || fail "mknod in the MIG host"
done
for f in "$tmp"/mig/dev/nvidia-caps/nvidia-cap*; do
  minor=${f##*nvidia-cap}
  rm -f "$f"
  mknod "$f" c 235 "$minor" || fail "mknod $f"
done
"$anygpu" --root "$tmp/mig" --no-libs slurm gres --output "$tmp/gres.conf" 2>/dev/null || fail "slurm gres (MIG)"
[ "$(grep -c '^Name=gpu Type=h100_mig MultipleFiles=' "$tmp/gres.conf")" = 11 ] ||
  { cat "$tmp/gres.conf"; fail "MIG node: expected 11 MultipleFiles= lines"; }
# With NVML (a mock answering the MIG calls, loaded from beneath the copy) each line's Type is
# its instance's profile, and `anygpu run` can name an instance to CUDA by its MIG-<uuid>.
mkdir -p "$tmp/mig/usr/lib/x86_64-linux-gnu"
cp "$mock_nvml_mig" "$tmp/mig/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1" || fail "install the mock NVML"
"$anygpu" --root "$tmp/mig" slurm gres --output "$tmp/gres.conf" 2>/dev/null || fail "slurm gres (MIG, NVML)"
grep -q "^Name=gpu Type=h100_2c.3g.40gb MultipleFiles=$tmp/mig/dev/nvidia1,$tmp/mig/dev/nvidia-caps/nvidia-cap156,$tmp/mig/dev/nvidia-caps/nvidia-cap158" "$tmp/gres.conf" ||
  { cat "$tmp/gres.conf"; fail "MIG node: no line for GPU 1's GI 2 / CI 1 (2c.3g.40gb)"; }
renode mig gpu:h100_1g.10gb:7,gpu:h100_4g.40gb:1,gpu:h100_1c.3g.40gb:1,gpu:h100_2c.3g.40gb:1,gpu:h100_3g.40gb:1,gpu:h100:5
slurm_start "MIG node"
show=$(scontrol show node "$node") || fail "scontrol show node (MIG)"
echo "$show" | grep -q "gpu:h100_2c.3g.40gb:1" || { echo "$show"; fail "MIG node Gres"; }
# The 2c.3g.40gb instance is gres.conf line 10: Slurm hands the step SLURM_STEP_GPUS=9, and
# `anygpu run` in it must select that instance and name it to CUDA by its MIG UUID.
mig_env=$(timeout 60 srun -n 1 --gres=gpu:h100_2c.3g.40gb:1 "$anygpu" --root "$tmp/mig" run \
  --no-check -- env 2>"$tmp/srun-mig.err") ||
  { cat "$tmp/srun-mig.err"; fail "srun --gres=gpu:h100_2c.3g.40gb:1 anygpu run"; }
mig_gpus=$(echo "$mig_env" | sed -n 's/^SLURM_STEP_GPUS=//p')
[ "$mig_gpus" = 9 ] || { echo "$mig_env" | grep GPU; fail "the MIG step got SLURM_STEP_GPUS='$mig_gpus', expected 9"; }
echo "$mig_env" | grep -qx "CUDA_VISIBLE_DEVICES=MIG-5c2e9d41-7a3b-5f60-8e12-3a4b5c6d7e21" ||
  { echo "$mig_env" | grep -E '^(ANYGPU|CUDA|SLURM_STEP)'; fail "anygpu run in the MIG step did not name GI 2 / CI 1 by its MIG UUID"; }

# An AMD node in CPX mode (mi300x-8x-cpx, from the real capture: 63 partitions, the GPU at
# 0xe5 with 7): one line per partition, each its own render node made a real DRM character
# node; the node must come up idle with all 63, and `anygpu run` in a step on line 10 must
# select that line's partition (GPU 1's second).
slurm_stop
cp -a "$hosts/mi300x-8x-cpx" "$tmp/cpx"
for f in "$tmp"/cpx/dev/dri/renderD*; do
  minor=${f##*renderD}
  rm -f "$f"
  mknod "$f" c 226 "$minor" || fail "mknod $f"
done
"$anygpu" --root "$tmp/cpx" --no-libs slurm gres --output "$tmp/gres.conf" 2>/dev/null || fail "slurm gres (CPX)"
# Each line carries Links= from KFD's partition links: 2 to the partitions of its own GPU, 1 to
# the others (the first line: itself, its seven siblings, then 55 partitions of other GPUs).
[ "$(grep -c "^Name=gpu Type=mi300x File=$tmp/cpx/dev/dri/renderD[0-9]* Links=[-0-9,]* Flags=amd_gpu_env$" "$tmp/gres.conf")" = 63 ] ||
  { cat "$tmp/gres.conf"; fail "CPX node: expected 63 partition lines"; }
grep -q "renderD128 Links=-1,2,2,2,2,2,2,2$(printf ',1%.0s' $(seq 55)) " "$tmp/gres.conf" ||
  { cat "$tmp/gres.conf"; fail "CPX node: the first line's Links="; }
grep -q "renderD191" "$tmp/gres.conf" && fail "CPX node: a line for the render node the capture lacks"
renode cpx gpu:mi300x:63
slurm_start "CPX node"
show=$(scontrol show node "$node") || fail "scontrol show node (CPX)"
echo "$show" | grep -q "Gres=gpu:mi300x:63" || { echo "$show"; fail "CPX node lacks Gres=gpu:mi300x:63"; }
echo "$show" | grep -qi "drain" && { echo "$show"; fail "CPX node drained"; }
grep -q "not a valid character or block device" "$tmp/slurmd.log" && fail "slurmd rejected a CPX File="
cpx_env=$(timeout 60 srun -n 1 --gres=gpu:mi300x:10 "$anygpu" --root "$tmp/cpx" --no-libs run \
  --no-check -- env 2>"$tmp/srun-cpx.err") ||
  { cat "$tmp/srun-cpx.err"; fail "srun --gres=gpu:mi300x:10 anygpu run (CPX)"; }
cpx_gpus=$(echo "$cpx_env" | sed -n 's/^SLURM_STEP_GPUS=//p')
[ "$cpx_gpus" = "0,1,2,3,4,5,6,7,8,9" ] || fail "the CPX step got SLURM_STEP_GPUS='$cpx_gpus'"
cpx_devices=$(echo "$cpx_env" | sed -n 's/^ANYGPU_DEVICES=//p')
[ "$cpx_devices" = "$(printf '0000:05:00.0/%s,' 0 1 2 3 4 5 6 7)0000:27:00.0/0,0000:27:00.0/1" ] ||
  { echo "$cpx_env" | grep -E '^(ANYGPU|ROCR|HIP|SLURM_STEP)'; fail "anygpu run in the CPX step chose '$cpx_devices'"; }

echo "PASS: the CPX node came up with 63 partition lines and anygpu run chose the step's ten partitions"
echo "PASS: slurmd accepted the generated gres.conf; srun tasks got RANK 0/1, WORLD_SIZE=2, MASTER_ADDR=$node, MASTER_PORT=$port; the mixed node came up, its AMD step got SLURM_STEP_GPUS=$mixed_gpus and no visible-devices variable, and anygpu run drove the GPU of each Type; the MIG node came up with one line per instance and anygpu run in a step on instance $mig_gpus named it by its MIG UUID"

# An Intel node with two tiled Data Center GPU Max 1550 and an Arc A770 (intel-max-arc): a
# tiled card is one line (its tiles share its nodes). A step on the second Max card must select
# both its tiles, and Slurm's ZE_AFFINITY_MASK (a card number; under the FLAT hierarchy it would
# name a tile) must become the tiles' flat numbers: the A770 is 0, the first Max 1 and 2.
slurm_stop
cp -a "$hosts/intel-max-arc" "$tmp/tiles"
char_nodes 226 "$tmp"/tiles/dev/dri/renderD*
"$anygpu" --root "$tmp/tiles" --no-libs slurm gres --output "$tmp/gres.conf" 2>/dev/null || fail "slurm gres (tiles)"
[ "$(grep -c '^Name=gpu Type=max_1550 File=' "$tmp/gres.conf")" = 2 ] ||
  { cat "$tmp/gres.conf"; fail "tiled node: expected one line per Max card"; }
up_idle tiles gpu:a770:1,gpu:max_1550:2 "tiled Intel node"
tiles_env=$(timeout 60 srun -n 1 --gres=gpu:max_1550:2 "$anygpu" --root "$tmp/tiles" --no-libs -v \
  run --no-check -- env 2>"$tmp/srun-tiles.err") ||
  { cat "$tmp/srun-tiles.err"; fail "srun --gres=gpu:max_1550:2 anygpu run (tiles)"; }
echo "$tiles_env" | grep -qx "SLURM_STEP_GPUS=1,2" ||
  { echo "$tiles_env" | grep -E '^(SLURM_STEP|ZE_)'; fail "the tiled step's GPUs"; }
echo "$tiles_env" | grep -qx "ANYGPU_DEVICES=0000:29:00.0/0,0000:29:00.0/1,0000:9a:00.0/0,0000:9a:00.0/1" ||
  { echo "$tiles_env" | grep -E '^(ANYGPU|ZE_)'; fail "anygpu run in the tiled step did not select both cards' tiles"; }
echo "$tiles_env" | grep -qx "ZE_FLAT_DEVICE_HIERARCHY=FLAT" || fail "tiled step: no FLAT hierarchy"
echo "$tiles_env" | grep -qx "ZE_AFFINITY_MASK=1,2,3,4" ||
  { echo "$tiles_env" | grep -E '^ZE_'; fail "tiled step: ZE_AFFINITY_MASK is not the four tiles' flat numbers"; }
grep -q "replacing Slurm's ZE_AFFINITY_MASK=1,2 with 1,2,3,4" "$tmp/srun-tiles.err" ||
  { cat "$tmp/srun-tiles.err"; fail "tiled step: Slurm's card mask was not said to be replaced"; }

# SR-IOV (intel-flex-sriov): the PF lending its memory to 4 VFs has no line; the two VFs bound
# to i915 and the second card do. A step on one GPU line drives that VF.
slurm_stop
cp -a "$hosts/intel-flex-sriov" "$tmp/sriov"
char_nodes 226 "$tmp"/sriov/dev/dri/renderD*
"$anygpu" --root "$tmp/sriov" --no-libs slurm gres --output "$tmp/gres.conf" 2>/dev/null || fail "slurm gres (SR-IOV)"
[ "$(grep -c '^Name=gpu Type=intel File=' "$tmp/gres.conf")" = 3 ] ||
  { cat "$tmp/gres.conf"; fail "SR-IOV node: expected the two host VFs and the second card"; }
up_idle sriov gpu:intel:3 "SR-IOV node"
vf_env=$(timeout 60 srun -n 1 --gres=gpu:intel:1 "$anygpu" --root "$tmp/sriov" --no-libs run \
  --no-check -- env 2>"$tmp/srun-sriov.err") ||
  { cat "$tmp/srun-sriov.err"; fail "srun --gres=gpu:intel:1 anygpu run (SR-IOV)"; }
echo "$vf_env" | grep -qx "SLURM_STEP_GPUS=0" || { echo "$vf_env" | grep SLURM_STEP; fail "SR-IOV step GPUs"; }
echo "$vf_env" | grep -qx "ANYGPU_DEVICES=0000:4d:00.1" ||
  { echo "$vf_env" | grep -E '^(ANYGPU|ZE_)'; fail "anygpu run in the SR-IOV step did not drive VF 0000:4d:00.1"; }

# Ascend with vNPUs on NPUs 0 and 1 (ascend-910b-vnpu): those NPUs lend themselves to their
# vNPUs and have no line; the six whole NPUs do, and a step on two drives the first two of them.
slurm_stop
cp -a "$hosts/ascend-910b-vnpu" "$tmp/vnpu"
char_nodes 236 "$tmp"/vnpu/dev/davinci[0-9]*
"$anygpu" --root "$tmp/vnpu" --no-libs slurm gres --output "$tmp/gres.conf" 2>/dev/null || fail "slurm gres (vNPU)"
[ "$(grep -c '^Name=gpu Type=ascend910b File=' "$tmp/gres.conf")" = 6 ] ||
  { cat "$tmp/gres.conf"; fail "vNPU node: expected six whole-NPU lines"; }
up_idle vnpu gpu:ascend910b:6 "vNPU node"
npu_env=$(timeout 60 srun -n 1 --gres=gpu:ascend910b:2 "$anygpu" --root "$tmp/vnpu" --no-libs run \
  --no-check -- env 2>"$tmp/srun-vnpu.err") ||
  { cat "$tmp/srun-vnpu.err"; fail "srun --gres=gpu:ascend910b:2 anygpu run (vNPU)"; }
echo "$npu_env" | grep -qx "ANYGPU_DEVICES=0000:01:00.0,0000:02:00.0" ||
  { echo "$npu_env" | grep -E '^(ANYGPU|ASCEND|SLURM_STEP)'; fail "anygpu run in the vNPU node's step"; }
echo "$npu_env" | grep -qx "ASCEND_RT_VISIBLE_DEVICES=0,1" ||
  { echo "$npu_env" | grep -E '^ASCEND'; fail "vNPU node step: ASCEND_RT_VISIBLE_DEVICES"; }
echo "PASS: tiled, SR-IOV and vNPU nodes came up idle and anygpu run drove each step's allocation"
