#!/bin/bash
# End to end with Podman and CDI on a MIG host: `cdi generate` on a copy of the h100-8x-mig
# fixture names each MIG instance "<gpu>:<instance>" and gives its parent and GI/CI capability
# nodes by type/major/minor. The copy's cap nodes are removed first (a host where nvidia-modprobe
# has not made them yet): Podman must still create exactly the instance's nodes, with the
# numbers the driver's procfs gives, in the container, and none of its siblings'.
# Usage: cdi_mig_podman_test.sh ANYGPU_BINARY FIXTURE_HOSTS_DIR (needs root: mknod, /etc/cdi)
set -u
anygpu=${1:?usage: cdi_mig_podman_test.sh ANYGPU FIXTURE_HOSTS_DIR}
hosts=${2:?usage: cdi_mig_podman_test.sh ANYGPU FIXTURE_HOSTS_DIR}
case $anygpu in /*) ;; *) anygpu=$PWD/$anygpu ;; esac
command -v podman >/dev/null || { echo "FAIL: podman not installed"; exit 1; }
command -v busybox >/dev/null || { echo "FAIL: busybox (busybox-static) not installed"; exit 1; }
image=localhost/anygpu-test-cdi-mig
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-cdi-mig.XXXXXX")
spec=/etc/cdi/anygpu-test-cdi-mig-$$.yaml
cleanup() { rm -f "$spec"; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat >"$tmp/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1000:1000"]
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF=$tmp/containers.conf

mkdir -p "$tmp/rootfs/bin"
cp "$(command -v busybox)" "$tmp/rootfs/bin/busybox"
for t in sh ls stat; do ln -s busybox "$tmp/rootfs/bin/$t"; done
tar -C "$tmp/rootfs" -cf "$tmp/rootfs.tar" . || fail "tar rootfs"
podman import -q "$tmp/rootfs.tar" "$image" >/dev/null || fail "podman import"

# The shared nodes become real (harmless) character devices; the cap nodes disappear.
cp -a "$hosts/h100-8x-mig" "$tmp/host"
for n in nvidiactl nvidia-uvm nvidia-uvm-tools nvidia-modeset; do
  rm -f "$tmp/host/dev/$n"
  mknod -m 0666 "$tmp/host/dev/$n" c 1 3 || fail "mknod needs root"
done
rm -rf "$tmp/host/dev/nvidia-caps"
"$anygpu" --root "$tmp/host" --no-libs cdi generate --output "$tmp/spec.yaml" 2>"$tmp/gen.err" ||
  { cat "$tmp/gen.err"; fail "cdi generate"; }
grep -q '^  - name: "1:2"$' "$tmp/spec.yaml" || { cat "$tmp/spec.yaml"; fail "no device 1:2"; }
grep -q '^  - name: "0"$' "$tmp/spec.yaml" && fail "a MIG-enabled GPU is offered whole"
mkdir -p /etc/cdi
cp "$tmp/spec.yaml" "$spec" || fail "cannot write $spec"

# GPU 1's instance 2 is GI 2 / CI 1 (nv-caps minors 156 and 158, major 235 in /proc/devices);
# its parent /dev/nvidia1 is 195:1. stat prints majors and minors in hex.
out=$(podman run --rm --device nvidia.com/gpu=1:2 "$image" \
  stat -c '%n %t:%T' /dev/nvidia1 /dev/nvidia-caps/nvidia-cap156 /dev/nvidia-caps/nvidia-cap158 2>&1) ||
  { echo "$out"; fail "podman run --device nvidia.com/gpu=1:2"; }
want="/dev/nvidia1 c3:1
/dev/nvidia-caps/nvidia-cap156 eb:9c
/dev/nvidia-caps/nvidia-cap158 eb:9e"
[ "$out" = "$want" ] || { printf 'got:\n%s\nwant:\n%s\n' "$out" "$want"; fail "instance nodes"; }
caps=$(podman run --rm --device nvidia.com/gpu=1:2 "$image" ls /dev/nvidia-caps | tr '\n' ' ')
[ "$caps" = "nvidia-cap156 nvidia-cap158 " ] || fail "/dev/nvidia-caps holds '$caps', expected only 1:2's"
others=$(podman run --rm --device nvidia.com/gpu=1:2 "$image" ls /dev | grep -c '^nvidia[0-9]')
[ "$others" = 1 ] || fail "$others GPU nodes in the container, expected only /dev/nvidia1"
echo "PASS: podman made nvidia.com/gpu=1:2's nodes from their numbers (no host cap nodes): $(echo "$out" | tr '\n' ';')"
