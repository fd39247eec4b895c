#!/bin/bash
# What anygpu says about CDI specs is what Podman does with them. In a private mount namespace
# (a tmpfs over /etc/cdi and /var/run/cdi, so no other user of this machine sees these specs):
#   - a spec file Podman cannot load is skipped, the others still resolve (doctor:
#     containers.cdi-unreadable says so);
#   - a name two specs of one directory define is refused ("unresolvable CDI devices"), and
#     doctor reports containers.cdi-duplicate;
#   - the same name in /var/run/cdi wins over /etc/cdi (doctor: containers.cdi-shadowed), and
#     Podman injects the /var/run/cdi spec's edits;
#   - `anygpu run --container` with a generated spec uses its names and Podman resolves them;
#     with a second copy of the spec beside it, it passes explicit nodes instead and the
#     container still starts with the selected devices.
# Needs root (unshare, mount, mknod). Usage: cdi_resolve_podman_test.sh ANYGPU FIXTURE_HOSTS_DIR
set -u
anygpu=${1:?usage: cdi_resolve_podman_test.sh ANYGPU FIXTURE_HOSTS_DIR}
hosts=${2:?usage: cdi_resolve_podman_test.sh ANYGPU FIXTURE_HOSTS_DIR}
case $anygpu in /*) ;; *) anygpu=$PWD/$anygpu ;; esac
if [ "${ANYGPU_CDI_NAMESPACE:-}" != 1 ]; then
  for tool in podman busybox unshare mount; do
    command -v "$tool" >/dev/null || { echo "FAIL: $tool not installed"; exit 1; }
  done
  ANYGPU_CDI_NAMESPACE=1 exec unshare --mount --propagation private "$0" "$@"
fi

image=localhost/anygpu-test-cdi-resolve
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-cdi-resolve.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

mkdir -p /etc/cdi /var/run/cdi
mount -t tmpfs tmpfs /etc/cdi && mount -t tmpfs tmpfs /var/run/cdi ||
  { echo "FAIL: cannot mount a private /etc/cdi (needs root)"; exit 1; }

cat >"$tmp/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1000:1000"]
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF=$tmp/containers.conf
mkdir -p "$tmp/rootfs/bin"
cp "$(command -v busybox)" "$tmp/rootfs/bin/busybox"
for t in sh ls true; do ln -s busybox "$tmp/rootfs/bin/$t"; done
tar -C "$tmp/rootfs" -cf "$tmp/rootfs.tar" . && podman import -q "$tmp/rootfs.tar" "$image" >/dev/null ||
  { echo "FAIL: podman import"; exit 1; }

# A spec of kind test.anygpu.dev/gpu whose device "a" is /dev/null at container path $2.
spec() {
  printf 'cdiVersion: 0.5.0\nkind: test.anygpu.dev/gpu\ndevices:\n- name: "a"\n  containerEdits:\n    deviceNodes: [{path: %s, hostPath: /dev/null}]\n' "$2" >"$1"
}
podman_ls() { timeout 120 podman run --rm --device test.anygpu.dev/gpu=a "$image" ls "$1" 2>&1; }
doctor_ids() { "$anygpu" --no-libs doctor --json 2>/dev/null | grep -o '"containers\.cdi-[a-z-]*"' | sort -u; }

spec /etc/cdi/one.yaml /dev/test-one
podman_ls /dev/test-one | grep -qx /dev/test-one && ok "one spec resolves" || bad "one spec: $(podman_ls /dev/test-one)"

printf '{"cdiVersion": "0.5.0", "kind": ' >/etc/cdi/broken.json
podman_ls /dev/test-one | grep -qx /dev/test-one && ok "a broken file beside it is skipped" ||
  bad "broken file beside: $(podman_ls /dev/test-one)"
doctor_ids | grep -qx '"containers.cdi-unreadable"' && ok "doctor: cdi-unreadable" || bad "doctor missed the broken file"
rm /etc/cdi/broken.json

spec /etc/cdi/two.yaml /dev/test-two
out=$(podman_ls /dev/test-one)
echo "$out" | grep -q "unresolvable CDI devices" && ok "a name two specs of /etc/cdi define is refused" ||
  bad "duplicate in one directory: $out"
doctor_ids | grep -qx '"containers.cdi-duplicate"' && ok "doctor: cdi-duplicate" || bad "doctor missed the duplicate"

mv /etc/cdi/two.yaml /var/run/cdi/two.yaml
out=$(podman_ls /dev)
echo "$out" | grep -qx test-two && ! echo "$out" | grep -qx test-one &&
  ok "/var/run/cdi takes the name over" || bad "across directories: $out"
ids=$(doctor_ids)
echo "$ids" | grep -qx '"containers.cdi-shadowed"' && ! echo "$ids" | grep -qx '"containers.cdi-duplicate"' &&
  ok "doctor: cdi-shadowed" || bad "doctor across directories: $ids"
rm -f /etc/cdi/* /var/run/cdi/*

# anygpu's choice on a fixture copy with real nodes, its spec in the private /etc/cdi too.
cp -a "$hosts/hygon-dcu" "$tmp/host"
for n in kfd mkfd dri/card0 dri/card1 dri/card2 dri/renderD128 dri/renderD129; do
  rm -f "$tmp/host/dev/$n" && mknod -m 0666 "$tmp/host/dev/$n" c 1 3 || { echo "FAIL: mknod"; exit 1; }
done
"$anygpu" -q --root "$tmp/host" cdi generate --vendor hygon --output "$tmp/host/etc/cdi/anygpu-hygon.yaml" ||
  { echo "FAIL: cdi generate"; exit 1; }
cp "$tmp/host/etc/cdi/anygpu-hygon.yaml" /etc/cdi/anygpu-hygon.yaml
run() { (cd "$tmp" && "$anygpu" --root "$tmp/host" run --no-check --container "$image" --engine podman "$@"); }
plan=$(run --dry-run -- true 2>/dev/null)
echo "$plan" | grep -q -- "--device hygon.com/dcu=0 --device hygon.com/dcu=1" && ok "run uses the spec's names" ||
  bad "plan: $plan"
out=$(run -- ls /dev/dri 2>"$tmp/run.err") && [ "$(echo $out)" = "renderD128 renderD129" ] &&
  ok "Podman resolves the names run passes" || bad "run with the spec: $out $(cat "$tmp/run.err")"

for d in "$tmp/host/etc/cdi" /etc/cdi; do cp "$d/anygpu-hygon.yaml" "$d/copy.yaml"; done
plan=$(run --dry-run -- true 2>"$tmp/plan.err")
echo "$plan" | grep -q "hygon.com/dcu=" && bad "plan passes a name runtimes refuse: $plan"
grep -q "runtimes refuse hygon.com/dcu=0" "$tmp/plan.err" && ok "run says why it passes nodes" ||
  bad "no warning: $(cat "$tmp/plan.err")"
out=$(run -- ls /dev/dri 2>"$tmp/run.err") && [ "$(echo $out)" = "renderD128 renderD129" ] &&
  ok "with two copies of the spec the container still starts with its devices" ||
  bad "run beside two copies: $out $(cat "$tmp/run.err")"

podman rmi -f "$image" >/dev/null 2>&1
[ "$fail" = 0 ] && echo "PASS: Podman and anygpu agree on broken, duplicate and shadowing CDI specs"
exit $fail
