#!/bin/bash
# The host's driver user space in containers, with real Podman: one image (busybox, glibc's
# loader, a probe that dlopens a vendor library by soname) run on four fixture hosts (NVIDIA,
# Ascend, Hygon, T-Head) that carry mock user-space drivers (make_driver_host.sh). Per host:
# `anygpu cdi generate` writes the spec; `podman run --device KIND=0` and
# `anygpu run --container` must give the non-root container the host's library (found by
# soname through the loader cache the spec's hook wrote), its management tool, read-only
# mounts, /dev/char links, and no file of another vendor; without a spec (`run --container`
# with the spec removed), the explicit --device/--mount/LD_LIBRARY_PATH form must answer too.
# Podman is set up as cdi_podman_test.sh does (runc, fixed ulimits through CONTAINERS_CONF).
# Needs root (mknod, /etc/cdi).
# Usage: driver_podman_test.sh ANYGPU FIXTURE_HOSTS_DIR
set -u
anygpu=$(realpath "${1:?usage: driver_podman_test.sh ANYGPU FIXTURE_HOSTS_DIR}")
hosts=$(realpath "${2:?usage: driver_podman_test.sh ANYGPU FIXTURE_HOSTS_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
for t in podman busybox cc ldconfig mknod; do
  command -v "$t" >/dev/null || { echo "FAIL: $t is required"; exit 1; }
done
image=localhost/anygpu-test-driver
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-driver.XXXXXX")
specs=()
cleanup() { rm -f "${specs[@]}"; rm -rf "$tmp"; }
trap cleanup EXIT
failed=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; failed=1; }

cat >"$tmp/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1000:1000"]
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF=$tmp/containers.conf

# One image for every vendor: busybox, the probe and the C library it needs, no driver file
# and no loader cache of its own.
root=$tmp/rootfs
mkdir -p "$root/bin" "$root/etc" "$root/tmp" "$root/workspace"
chmod 1777 "$root/tmp"
cp "$(command -v busybox)" "$root/bin/busybox"
for t in sh ls cat grep stat test id readlink; do ln -s busybox "$root/bin/$t"; done
cc -O1 -o "$root/probe" "$here/driver/probe.c" || { echo "FAIL: cannot build the probe"; exit 1; }
for so in $(ldd "$root/probe" | grep -o '/[^ ]*'); do
  mkdir -p "$root$(dirname "$so")"
  cp -L "$so" "$root$so"
done
tar -C "$root" -cf "$tmp/rootfs.tar" .
podman rmi -f "$image" >/dev/null 2>&1
podman import -q "$tmp/rootfs.tar" "$image" >/dev/null || { echo "FAIL: podman import"; exit 1; }

# vendor fixture kind soname entry answer tool own-files other-vendors'-files
cases=(
  "nvidia h100-8x nvidia.com/gpu libcuda.so.1 cuDriverGetVersion 12040 nvidia-smi /usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07 /usr/local/dcmi:/opt/hyhal:/usr/local/PPU_SDK"
  "ascend ascend-910b-8x huawei.com/npu libdcmi.so dcmi_get_card_num_list 8 npu-smi /usr/local/dcmi /usr/lib/x86_64-linux-gnu/libcuda.so.1:/opt/hyhal:/usr/local/PPU_SDK"
  "hygon hygon-dcu hygon.com/dcu librocm_smi64.so.2 rsmi_num_monitor_devices 2 /opt/hyhal/bin/hy-smi /opt/hyhal /usr/lib/x86_64-linux-gnu/libcuda.so.1:/usr/local/dcmi"
  "thead thead-ppu-4x alibabacloud.com/ppu libhgml.so hgmlDeviceGetCount 4 ppu-smi /usr/local/PPU_SDK/lib/libhgml.so /usr/lib/x86_64-linux-gnu/libcuda.so.1:/opt/hyhal:/usr/local/dcmi"
)
mkdir -p /etc/cdi
for c in "${cases[@]}"; do
  read -r vendor fixture kind soname entry answer tool own others <<<"$c"
  host=$tmp/host-$vendor
  "$here/driver/make_driver_host.sh" "$vendor" "$hosts/$fixture" "$host" --mknod ||
    { bad "$vendor: fixture"; continue; }
  spec=$host/etc/cdi/anygpu-$vendor.yaml
  "$anygpu" --root "$host" --no-libs cdi generate --output "$spec" 2>"$tmp/gen.err" ||
    { cat "$tmp/gen.err"; bad "$vendor: cdi generate"; continue; }
  grep -q "update-ldcache" "$spec" || { cat "$spec"; bad "$vendor: no update-ldcache hook"; }
  sys=/etc/cdi/anygpu-test-driver-$$-$vendor.yaml
  cp "$spec" "$sys" && specs+=("$sys")

  # Inside: the probe as uid 1001, the tool, read-only mounts, /dev/char, nothing foreign.
  check='set -u
    /probe "$1" "$2" || exit 11
    "$3" || exit 12
    grep -q " $4 ro[, ]" /proc/self/mountinfo || { grep " $4 " /proc/self/mountinfo; exit 13; }
    [ "$6" = no ] || ls /dev/char | grep -q ":" || exit 14
    IFS=:; for f in $5; do test -e "$f" && { echo "foreign: $f"; exit 15; }; done
    id -u'
  args=(sh -c "$check" probe "$soname" "$entry" "$tool" "$own" "$others" yes)
  out=$(podman run --rm --device "$kind=0" --user 1001:1001 --cap-drop ALL \
          --security-opt no-new-privileges "$image" "${args[@]}" 2>&1)
  rc=$?
  if [ $rc -eq 0 ] && echo "$out" | grep -q "answer $answer" && echo "$out" | grep -qx 1001; then
    ok "$vendor: podman --device $kind=0: $soname answered $answer, $tool ran, read-only, uid 1001"
  else
    echo "$out"; bad "$vendor: podman --device $kind=0 (exit $rc)"
  fi

  # The hook's part: without it the loader does not search the vendor's folders.
  if [ "$vendor" != nvidia ]; then
    sed '/^  hooks:/,$d' "$spec" >"$sys"
    if podman run --rm --device "$kind=0" --user 1001:1001 "$image" /probe "$soname" "$entry" \
         >/dev/null 2>&1; then
      bad "$vendor: $soname found without the update-ldcache hook: the test proves nothing"
    else
      ok "$vendor: without the hook $soname is not found"
    fi
    cp "$spec" "$sys"
  fi

  work=$tmp/work-$vendor
  mkdir -p "$work" && chmod 755 "$work"
  out=$(cd "$work" && "$anygpu" --root "$host" --no-libs run --no-check --container "$image" \
          --engine podman -- "${args[@]}" 2>&1)
  rc=$?
  if [ $rc -eq 0 ] && echo "$out" | grep -q "answer $answer"; then
    ok "$vendor: anygpu run --container: $soname answered $answer"
  else
    echo "$out"; bad "$vendor: anygpu run --container (exit $rc)"
  fi
  # No spec: explicit --device and read-only --mount, LD_LIBRARY_PATH for the hook's part.
  plan=$(cd "$work" && "$anygpu" --root "$host" --no-libs run --no-check --container "$image" \
           --engine podman --dry-run -- true 2>&1)
  echo "$plan" | grep -q -- "--device $kind=" && ok "$vendor: with the spec, devices go by CDI name" ||
    { echo "$plan"; bad "$vendor: the plan does not use the spec's CDI names"; }

  # No hook ran, so no /dev/char links: that part is left out.
  rm -f "$sys" "$spec"
  plan=$(cd "$work" && "$anygpu" --root "$host" --no-libs run --no-check --container "$image" \
           --engine podman --dry-run -- true 2>&1)
  if echo "$plan" | grep -q -- "--device $kind=" || ! echo "$plan" | grep -q -- ",ro"; then
    echo "$plan"; bad "$vendor: without a spec the plan lacks explicit read-only mounts"
  fi
  args[${#args[@]}-1]=no
  out=$(cd "$work" && "$anygpu" --root "$host" --no-libs run --no-check --container "$image" \
          --engine podman -- "${args[@]}" 2>&1)
  rc=$?
  if [ $rc -eq 0 ] && echo "$out" | grep -q "answer $answer"; then
    ok "$vendor: anygpu run --container without a spec: $soname answered $answer"
  else
    echo "$out"; bad "$vendor: anygpu run --container without a spec (exit $rc)"
  fi
done
[ $failed -eq 0 ] && echo "PASS: one image, four hosts, each host's own driver"
exit $failed
