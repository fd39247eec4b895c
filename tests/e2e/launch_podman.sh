#!/usr/bin/env bash
# `anygpu run --container` with real Podman: an offline busybox image, a copy of the 8×H100
# fixture whose device nodes are real character devices, two of eight GPUs selected. The
# container must see exactly the selected nodes, the renumbered variable, uid 1001, /workspace,
# and the argv intact.
set -u
bin=$(realpath "$1")
hosts=$(realpath "$2")
image=localhost/anygpu-test-launch:latest
fail=0
for tool in podman mknod tar; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is required for this test"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
expect_in() {
  if grep -qxF -- "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: line '$3' not in:"; cat "$2"; fail=1; fi
}
expect_not_in() {
  if grep -qF -- "$3" "$2"; then echo "FAIL $1: '$3' present:"; cat "$2"; fail=1; else echo "ok   $1"; fi
}

# Podman on this kind of machine needs runc and explicit ulimits; kept out of product defaults.
cat >"$tmp/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1000:1000"]
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF="$tmp/containers.conf"

# Offline image: a static busybox rootfs.
mkdir -p "$tmp/rootfs/bin" "$tmp/rootfs/workspace" "$tmp/rootfs/tmp" "$tmp/rootfs/data"
chmod 755 "$tmp/rootfs/data"
cp /bin/busybox "$tmp/rootfs/bin/busybox"
for app in sh env id ls cat printf pwd stat test true touch; do ln -s busybox "$tmp/rootfs/bin/$app"; done
tar -C "$tmp/rootfs" -cf "$tmp/rootfs.tar" .
podman rmi -f "$image" >/dev/null 2>&1
podman import "$tmp/rootfs.tar" "$image" >/dev/null || { echo "FAIL: podman import"; exit 1; }

# The fixture's nodes become real character devices (the /dev/null numbers: harmless to open).
cp -a "$hosts/h100-8x" "$tmp/host"
for n in "$tmp"/host/dev/nvidia[0-9]* "$tmp/host/dev/nvidiactl" "$tmp/host/dev/nvidia-uvm" \
         "$tmp/host/dev/nvidia-uvm-tools" "$tmp/host/dev/nvidia-modeset"; do
  rm -f "$n" && mknod "$n" c 1 3 || { echo "FAIL: mknod $n"; exit 1; }
done
# The GPUs' DRM nodes too (EGL and Vulkan open them), and the host's video and render groups.
for n in "$tmp"/host/dev/dri/card[0-9]* "$tmp"/host/dev/dri/renderD[0-9]*; do
  rm -f "$n" && mknod "$n" c 1 3 || { echo "FAIL: mknod $n"; exit 1; }
done
printf 'root:x:0:\nvideo:x:44:\nrender:x:993:\n' >"$tmp/host/etc/group"
mkdir -p "$tmp/work"
chmod 755 "$tmp/work"
printf 'devices: [0, 3]\n' >"$tmp/work/accelerator-config.yaml"
cd "$tmp/work" || exit 1

run() {
  "$bin" --root "$tmp/host" --no-libs run --no-check --container "$image" --engine podman "$@"
}
run -- sh -c 'id -u; id -g; pwd; ls /dev; env' >"$tmp/out" 2>"$tmp/err"
check "container run" 0 $?
cat "$tmp/err"
expect_in "uid 1001" "$tmp/out" "1001"
expect_in "/workspace" "$tmp/out" "/workspace"
for n in nvidia0 nvidia3 nvidiactl nvidia-uvm nvidia-uvm-tools; do
  expect_in "node $n present" "$tmp/out" "$n"
done
for n in nvidia1 nvidia2 nvidia4 nvidia5 nvidia6 nvidia7 nvidia-modeset; do
  if grep -qx "$n" "$tmp/out"; then echo "FAIL: $n passed into the container"; fail=1; else echo "ok   $n not passed"; fi
done
# GPU 0's and GPU 3's DRM nodes (card1 renderD128, card4 renderD131), no other GPU's, and the
# host's video and render gids to open them as uid 1001.
run -- sh -c 'ls /dev/dri; id -G' >"$tmp/dri" 2>"$tmp/dri.err"
check "container run with DRM nodes" 0 $?
for n in card1 renderD128 card4 renderD131; do expect_in "DRM node $n present" "$tmp/dri" "$n"; done
for n in card0 card2 renderD129 renderD130 renderD132; do
  if grep -qx "$n" "$tmp/dri"; then echo "FAIL: $n passed into the container"; fail=1; else echo "ok   $n not passed"; fi
done
grep -qE '(^| )44( |$)' "$tmp/dri" && grep -qE '(^| )993( |$)' "$tmp/dri" &&
  echo "ok   video and render gids" || { echo "FAIL: no video/render gid:"; cat "$tmp/dri" "$tmp/dri.err"; fail=1; }
expect_in "renumbered CUDA_VISIBLE_DEVICES" "$tmp/out" "CUDA_VISIBLE_DEVICES=0,1"
expect_in "ANYGPU_VENDOR" "$tmp/out" "ANYGPU_VENDOR=nvidia"
expect_in "PYTHONUNBUFFERED" "$tmp/out" "PYTHONUNBUFFERED=1"
expect_in "NVIDIA hook off" "$tmp/out" "NVIDIA_VISIBLE_DEVICES=void"

# The device is a character device the (non-root) user may use.
run -- stat -c '%F %t:%T' /dev/nvidia3 >"$tmp/stat"
expect_in "real character device" "$tmp/stat" "character special file 1:3"

# argv intact through the engine.
args=('a b' "it's" '"dq"' ';' '$(id)' '*' '' '[1,2]' '{}' '--x=1' '-v')
run -- printf '%s\n' "${args[@]}" >"$tmp/got"
check "tricky argv status" 0 $?
printf '%s\n' "${args[@]}" >"$tmp/want"
cmp -s "$tmp/want" "$tmp/got" && echo "ok   argv byte for byte in the container" || { echo "FAIL argv differs"; diff "$tmp/want" "$tmp/got"; fail=1; }

# Exit status passes through the engine.
run -- sh -c 'exit 3'
check "container exit status" 3 $?

# Engine arguments go before the image; --user and --read-only apply.
run --user 1234:1234 --engine-arg=--network=none -- sh -c 'id -u; ls /sys/class/net' >"$tmp/opts"
expect_in "--user" "$tmp/opts" "1234"
expect_not_in "--network=none (no eth0)" "$tmp/opts" "eth0"
# As the image's owner (uid 0) only a read-only root filesystem refuses the write.
run --user 0:0 -- sh -c 'touch /data/x 2>/dev/null && echo writable || echo readonly' >"$tmp/rw"
expect_in "writable without --read-only" "$tmp/rw" "writable"
run --user 0:0 --read-only -- sh -c 'touch /data/x 2>/dev/null && echo writable || echo readonly' >"$tmp/ro"
expect_in "--read-only" "$tmp/ro" "readonly"

# Values that would reach Podman's argv as flags are refused (exit 125, run's own failure, the
# flag named) before any container exists: never a privileged container, never a silent native
# run.
before=$(podman ps -a -q | wc -l)
"$bin" --root "$tmp/host" --no-libs run --no-check --container=--privileged --engine podman \
  -- sh -c 'echo ran' >"$tmp/priv" 2>"$tmp/priv.err"
check "--container=--privileged refused" 125 $?
expect_not_in "nothing ran" "$tmp/priv" "ran"
grep -qF -- "--container '--privileged'" "$tmp/priv.err" && echo "ok   the flag is named" ||
  { echo "FAIL: message:"; cat "$tmp/priv.err"; fail=1; }
"$bin" --root "$tmp/host" --no-libs run --no-check --container '' --engine podman \
  -- sh -c 'echo ran' >"$tmp/empty" 2>"$tmp/empty.err"
check "--container '' refused" 125 $?
expect_not_in "not run natively" "$tmp/empty" "ran"
run --user '0:0 --privileged' -- true 2>/dev/null
check "--user with a flag refused" 125 $?
run --shm-size=--privileged -- true 2>/dev/null
check "--shm-size with a flag refused" 125 $?
run --engine-arg=--privileged -- true 2>/dev/null
check "--engine-arg=--privileged refused" 125 $?
# Engine arguments are read as Podman reads them: every spelling that makes the container root or
# hands it every GPU is refused.
for arg in -u0 -tu0 -u1001:0 --user=0 -eNVIDIA_VISIBLE_DEVICES=all --env=NVIDIA_VISIBLE_DEVICES=all \
  -e=CUDA_VISIBLE_DEVICES=0-7 -v/dev:/dev --volume=/:/host '--mount=type=bind,"src=/dev",dst=/d'; do
  run --engine-arg="$arg" -- true 2>"$tmp/arg.err"
  check "--engine-arg=$arg refused" 125 $?
  grep -qF -- "--engine-arg '$arg" "$tmp/arg.err" || { echo "FAIL: message for $arg:"; cat "$tmp/arg.err"; fail=1; }
done
run --engine-arg=-e --engine-arg=NVIDIA_VISIBLE_DEVICES=all -- true 2>/dev/null
check "--engine-arg=-e NVIDIA_VISIBLE_DEVICES=all (value in the next argument) refused" 125 $?
after=$(podman ps -a -q | wc -l)
[ "$before" = "$after" ] && echo "ok   no container created" || { echo "FAIL: containers created"; fail=1; }

# What was refused above is what Podman itself does with those spellings: -tu0 and -u1001:0
# (after anygpu's --user) make the process root, uid or group.
podman run --rm --user 1001:1001 -tu0 "$image" id -u 2>/dev/null | tr -d '\r' >"$tmp/podman-u0"
expect_in "podman reads -tu0 as --user 0" "$tmp/podman-u0" "0"
podman run --rm --user 1001:1001 -u1001:0 "$image" id -g 2>/dev/null >"$tmp/podman-g0"
expect_in "podman reads -u1001:0 as group 0" "$tmp/podman-g0" "0"
# Podman reads --mount as a CSV record: a quoted "src=…" field is a source like any other.
mkdir -p "$tmp/quoted" && chmod 755 "$tmp/quoted" && touch "$tmp/quoted/marker" && chmod 644 "$tmp/quoted/marker"
podman run --rm --mount "type=bind,\"src=$tmp/quoted\",dst=/q" "$image" ls /q >"$tmp/podman-csv" 2>&1
expect_in "podman reads a quoted src= field as the source" "$tmp/podman-csv" "marker"
# An accepted glued short flag reaches the container as the engine reads it.
run --engine-arg=-eANYGPU_TEST_GLUED=yes -- sh -c 'echo "glued=$ANYGPU_TEST_GLUED"' >"$tmp/glued"
expect_in "--engine-arg=-eNAME=VALUE sets the variable" "$tmp/glued" "glued=yes"

# A working directory whose name holds ':' and ',' still mounts at /workspace.
odd="$tmp/run:1,a"
mkdir -p "$odd" && chmod 755 "$odd" && cp "$tmp/work/accelerator-config.yaml" "$odd/"
echo marker >"$odd/marker.txt" && chmod 644 "$odd/marker.txt"
(cd "$odd" && run -- sh -c 'pwd; cat /workspace/marker.txt') >"$tmp/odd" 2>"$tmp/odd.err"
check "cwd with ':' and ','" 0 $?
cat "$tmp/odd.err"
expect_in "workspace mounted" "$tmp/odd" "marker"

# A CDI spec that covers GPU 0 but grants GPU 1 and /dev/mem at its top level is not used by
# name: the container gets explicit nodes (GPU 0 only) and the plan warns.
mkdir -p "$tmp/host/etc/cdi"
cat >"$tmp/host/etc/cdi/wide.yaml" <<SPEC
cdiVersion: 0.5.0
kind: nvidia.com/gpu
devices:
- name: "0"
  containerEdits:
    deviceNodes:
    - {path: /dev/nvidia0, hostPath: $tmp/host/dev/nvidia0}
    - {path: /dev/dri/card1, hostPath: $tmp/host/dev/dri/card1}
    - {path: /dev/dri/renderD128, hostPath: $tmp/host/dev/dri/renderD128}
containerEdits:
  deviceNodes:
  - {path: /dev/nvidiactl, hostPath: $tmp/host/dev/nvidiactl}
  - {path: /dev/nvidia-uvm, hostPath: $tmp/host/dev/nvidia-uvm}
  - {path: /dev/nvidia-uvm-tools, hostPath: $tmp/host/dev/nvidia-uvm-tools}
  - {path: /dev/nvidia1, hostPath: $tmp/host/dev/nvidia1}
  - {path: /dev/mem, hostPath: /dev/mem}
SPEC
printf 'devices: [0]\n' >"$tmp/work/accelerator-config.yaml"
run -- ls /dev >"$tmp/wide" 2>"$tmp/wide.err"
check "run beside a wide CDI spec" 0 $?
grep -qF "wide.yaml covers the selected devices but its top-level containerEdits add" \
  "$tmp/wide.err" && echo "ok   warned about the wide spec" || { echo "FAIL: no warning:"; cat "$tmp/wide.err"; fail=1; }
expect_in "GPU 0 passed" "$tmp/wide" "nvidia0"
for n in nvidia1 mem; do
  if grep -qx "$n" "$tmp/wide"; then echo "FAIL: $n granted"; fail=1; else echo "ok   $n not granted"; fi
done
"$bin" --root "$tmp/host" cdi list >"$tmp/list" 2>&1
grep -qF "warning: /etc/cdi/wide.yaml: top-level containerEdits give every nvidia.com/gpu device" "$tmp/list" &&
  echo "ok   cdi list marks the spec" || { echo "FAIL: cdi list:"; cat "$tmp/list"; fail=1; }
rm -f "$tmp/host/etc/cdi/wide.yaml"

podman rmi -f "$image" >/dev/null 2>&1
exit $fail
