#!/bin/bash
# End to end with Podman and CDI: a copy of the hygon-dcu fixture gets real character nodes,
# `anygpu --root COPY cdi generate` writes a spec (hostPath beneath the copy), and
# `anygpu --root COPY run --container IMG -- ls …` must pass the devices as CDI names so the
# container sees exactly the selected devices' nodes and the vendor's shared nodes.
# Podman 4.3 reads only /etc/cdi and /var/run/cdi (no cdi_spec_dirs yet), so the spec goes to
# /etc/cdi under a unique name as well and is removed on exit. Needs root (mknod, /etc/cdi).
# Usage: cdi_podman_test.sh ANYGPU_BINARY FIXTURE_HOSTS_DIR
set -u
anygpu=${1:?usage: cdi_podman_test.sh ANYGPU FIXTURE_HOSTS_DIR}
hosts=${2:?usage: cdi_podman_test.sh ANYGPU FIXTURE_HOSTS_DIR}
case $anygpu in /*) ;; *) anygpu=$PWD/$anygpu ;; esac
command -v podman >/dev/null || { echo "FAIL: podman not installed"; exit 1; }
command -v busybox >/dev/null || { echo "FAIL: busybox (busybox-static) not installed"; exit 1; }
image=localhost/anygpu-test-cdi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-cdi.XXXXXX")
spec=/etc/cdi/anygpu-test-cdi-$$.yaml
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

# An offline busybox image.
mkdir -p "$tmp/rootfs/bin"
cp "$(command -v busybox)" "$tmp/rootfs/bin/busybox"
for t in sh ls cat env id stat test; do ln -s busybox "$tmp/rootfs/bin/$t"; done
tar -C "$tmp/rootfs" -cf "$tmp/rootfs.tar" . || fail "tar rootfs"
podman import -q "$tmp/rootfs.tar" "$image" >/dev/null || fail "podman import"

# The fixture copy with real character devices where the fixture has plain files.
cp -a "$hosts/hygon-dcu" "$tmp/host"
for n in kfd mkfd dri/card0 dri/card1 dri/card2 dri/renderD128 dri/renderD129; do
  rm -f "$tmp/host/dev/$n"
  mknod -m 0666 "$tmp/host/dev/$n" c 1 3 || fail "mknod needs root"
done
# anygpu reads the simulated host's CDI directory, Podman the machine's: the same spec in both.
"$anygpu" --root "$tmp/host" cdi generate --output "$tmp/host/etc/cdi/anygpu-hygon.yaml" ||
  fail "cdi generate"
mkdir -p /etc/cdi
cp "$tmp/host/etc/cdi/anygpu-hygon.yaml" "$spec" || fail "cannot write $spec"
"$anygpu" cdi list >/dev/null 2>"$tmp/list.err" || { cat "$tmp/list.err"; fail "cdi list rejects a spec in /etc/cdi"; }

plan=$("$anygpu" --root "$tmp/host" run --no-check --container "$image" --engine podman --dry-run -- ls /dev /dev/dri) ||
  fail "run --dry-run"
echo "$plan" | grep -q -- "--device hygon.com/dcu=0 --device hygon.com/dcu=1" ||
  { echo "$plan"; fail "plan does not use the CDI names"; }
echo "$plan" | grep -q -- "--privileged" && fail "plan is privileged"

out=$(cd "$tmp" && "$anygpu" --root "$tmp/host" run --no-check --container "$image" --engine podman -- ls /dev /dev/dri 2>"$tmp/run.err") ||
  { cat "$tmp/run.err"; fail "run --container"; }
dri=$(echo "$out" | sed -n '/^\/dev\/dri:/,$p' | tail -n +2 | tr -s ' \n' ' ' | sed 's/ $//')
# A compute container gets the render nodes only (the registry's container.drm rule).
[ "$dri" = "renderD128 renderD129" ] || { echo "$out"; fail "/dev/dri holds '$dri'"; }
for n in kfd mkfd; do echo "$out" | grep -qx "$n" || { echo "$out"; fail "/dev/$n missing"; }; done
echo "PASS: podman got hygon.com/dcu=0,1 through CDI; /dev/dri: $dri, /dev/kfd, /dev/mkfd"
