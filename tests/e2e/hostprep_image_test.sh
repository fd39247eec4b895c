#!/usr/bin/env bash
# The Dockerfile `anygpu init` writes builds offline with Podman: a local BusyBox base passed
# as BASE_IMAGE, GPU_BACKEND=none (no wheel download), the anygpu binary and Python package
# staged in anygpu-dist/. The image runs as 1001:1001 in /workspace with the exec-form
# entrypoint.
set -u
bin=$1
lib=$2
src=$3
fail=0
for tool in podman busybox; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is required (make test installs it)"; exit 1; }
done
tmp=$(mktemp -d)
base=localhost/anygpu-test-hostprep-base:latest
image=localhost/anygpu-test-hostprep:latest
cleanup() {
  podman rmi -f "$image" "$base" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
# This machine's Podman needs runc and explicit ulimits; products never bake these in.
cat >"$tmp/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1000:1000"]
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF="$tmp/containers.conf"

# A BusyBox rootfs as the offline base image.
mkdir -p "$tmp/rootfs/bin" "$tmp/rootfs/etc" "$tmp/rootfs/tmp"
cp "$(command -v busybox)" "$tmp/rootfs/bin/busybox"
for app in sh env id ls cat stat test [ echo mkdir chown; do ln -s busybox "$tmp/rootfs/bin/$app"; done
echo 'root:x:0:0:root:/root:/bin/sh' >"$tmp/rootfs/etc/passwd"
echo 'root:x:0:' >"$tmp/rootfs/etc/group"
tar -C "$tmp/rootfs" -cf "$tmp/rootfs.tar" .
podman import -q "$tmp/rootfs.tar" "$base" >/dev/null || { echo "FAIL podman import"; exit 1; }

"$bin" init "$tmp/exp" >/dev/null || { echo "FAIL anygpu init"; exit 1; }
mkdir -p "$tmp/exp/anygpu-dist/python"
cp "$bin" "$tmp/exp/anygpu-dist/anygpu"
cp -r "$src/python/anygpu" "$tmp/exp/anygpu-dist/python/"
cp "$lib" "$tmp/exp/anygpu-dist/python/anygpu/libanygpu.so"  # the build's file is versioned
echo "not for the image" >"$tmp/exp/notes.txt"  # .dockerignore keeps it out

podman build --network=none --pull=never -q -f "$tmp/exp/Dockerfile" \
  --build-arg BASE_IMAGE="$base" --build-arg GPU_BACKEND=none -t "$image" "$tmp/exp" >"$tmp/build.log" 2>&1
rc=$?
if [ $rc != 0 ]; then echo "FAIL podman build (exit $rc)"; cat "$tmp/build.log"; exit 1; fi
echo "ok   podman build offline"

inspect() { podman image inspect --format "$1" "$image"; }
[ "$(inspect '{{.Config.User}}')" = "1001:1001" ] || { echo "FAIL user: $(inspect '{{.Config.User}}')"; fail=1; }
[ "$(inspect '{{.Config.WorkingDir}}')" = "/workspace" ] || { echo "FAIL workdir"; fail=1; }
[ "$(inspect '{{json .Config.Entrypoint}}')" = '["anygpu","run","--","python3","train.py"]' ] \
  || { echo "FAIL entrypoint: $(inspect '{{json .Config.Entrypoint}}')"; fail=1; }
inspect '{{json .Config.Env}}' | grep -q 'PYTHONUNBUFFERED=1' || { echo "FAIL env"; fail=1; }
out=$(podman run --rm --network=none --entrypoint /bin/sh "$image" -c \
  'id -u; id -g; ls /workspace; test -x /usr/local/bin/anygpu && echo bin; test -f /opt/anygpu/python/anygpu/libanygpu.so && echo lib; test -e /workspace/notes.txt && echo leaked' 2>&1)
expected=$(printf '1001\n1001\naccelerator-config.yaml\nruntime-spec.yaml\ntrain.py\nbin\nlib')
if [ "$out" != "$expected" ]; then echo "FAIL image contents:"; echo "$out"; fail=1; else echo "ok   image contents and user"; fi
[ $fail = 0 ] && echo "ok   scaffolded image"
exit $fail
