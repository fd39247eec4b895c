#!/bin/bash
# `anygpu preflight --container IMAGE` with real Podman: the test processes run in the image
# (started as `run --container` starts it: non-root, no capabilities), with the image's torch
# and anygpu package (at paths the host does not have), on the CPU with two processes and the
# gloo all-reduce. The image is an empty root file system whose /usr, current-torch venv and
# anygpu package are bind-mounted read-only through --engine-arg, so its torch (2.x, from the
# venv) differs from the host's Debian torch 1.13 and the rank files show which one ran. Also:
# an image whose interpreter lacks torch fails each device naming the image; nothing is left in
# TMPDIR; --engine without --container is bad input. Podman is set up as the other Podman tests do.
# Usage: preflight_podman_test.sh ANYGPU LIBANYGPU REPO
set -u
anygpu=$(realpath "${1:?usage: preflight_podman_test.sh ANYGPU LIBANYGPU REPO}")
library=$(realpath "${2:?usage: preflight_podman_test.sh ANYGPU LIBANYGPU REPO}")
repo=$(realpath "${3:?usage: preflight_podman_test.sh ANYGPU LIBANYGPU REPO}")
for t in podman python3; do
  command -v "$t" >/dev/null || { echo "FAIL: $t is required"; exit 1; }
done
venv_python=$("$repo/tools/torch_venv.sh" --path) || { echo "FAIL: no current-torch venv"; exit 1; }
venv=$(dirname "$(dirname "$venv_python")")
image=localhost/anygpu-test-preflight:v1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-preflight-podman.XXXXXX")
cleanup() { podman rmi -f "$image" >/dev/null 2>&1; rm -rf "$tmp"; }
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

# An empty Debian-shaped root (merged /usr): everything it runs comes from the mounts below.
root=$tmp/rootfs
mkdir -p "$root"/{etc,tmp,workspace,opt,root,usr,proc,sys,dev,run}
chmod 1777 "$root/tmp"
chmod 755 "$root/root"
for l in bin lib lib64 sbin; do ln -s "usr/$l" "$root/$l"; done
printf 'root:x:0:0::/root:/bin/sh\nuser:x:1001:1001::/tmp:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nuser:x:1001:\n' >"$root/etc/group"
tar -C "$root" -cf "$tmp/rootfs.tar" . || { echo "FAIL: tar"; exit 1; }
podman rmi -f "$image" >/dev/null 2>&1
podman import -q "$tmp/rootfs.tar" "$image" >/dev/null || { echo "FAIL: podman import"; exit 1; }

printf 'backend: cpu\n' >"$tmp/cpu.yaml"
mkdir "$tmp/scratch"
mounts=(--engine-arg=--mount=type=bind,src=/usr,dst=/usr,ro
        "--engine-arg=--mount=type=bind,src=$repo/python,dst=/opt/anygpu/python,ro"
        "--engine-arg=--mount=type=bind,src=$library,dst=/opt/anygpu/libanygpu.so,ro"
        --engine-arg=--env=PYTHONPATH=/opt/anygpu/python
        --engine-arg=--env=ANYGPU_LIBRARY=/opt/anygpu/libanygpu.so)
preflight() {
  TMPDIR=$tmp/scratch OMP_NUM_THREADS=1 timeout 240 "$anygpu" preflight --config "$tmp/cpu.yaml" \
    --nproc-per-node 2 --container "$image" "$@"
}

# 1. The image's torch from the venv, two processes, the gloo all-reduce across them.
want_torch=$("$venv_python" -c 'import torch; print(torch.__version__)')
# The venv is mounted where the host has nothing, so only a process in the container can run it.
out=$(preflight --json --python /opt/torch-venv/bin/python "${mounts[@]}" \
  "--engine-arg=--mount=type=bind,src=$venv,dst=/opt/torch-venv,ro" --results "$tmp/results" \
  2>"$tmp/err")
rc=$?
if [ $rc -eq 0 ]; then
  python3 - "$out" "$tmp/results" "$want_torch" <<'PY' && ok "in the image: cpu:0 and cpu:1 ok, gloo all-reduce passed, torch $want_torch" || bad "in the image: $out"
import json, os, sys
doc = json.loads(sys.argv[1])
assert [d["id"] for d in doc["devices"]] == ["cpu:0", "cpu:1"], doc
for d in doc["devices"]:
    tests = {t["name"]: t for t in d["tests"]}
    assert d["verdict"] == "ok", d
    assert tests["all_reduce"]["status"] == "pass", d
    assert tests["all_reduce"]["detail"].startswith("gloo, 2 processes"), d
assert sorted(os.listdir(sys.argv[2])) == ["rank-0.json", "rank-1.json"]
for r in (0, 1):
    rank = json.load(open(os.path.join(sys.argv[2], f"rank-{r}.json")))
    assert rank["torch"] == sys.argv[3], rank  # the image's torch, not the host's
PY
else
  cat "$tmp/err"
  bad "in the image: exit $rc"
fi
host_torch=$(/usr/bin/python3 -c 'import torch; print(torch.__version__)' 2>/dev/null)
[ "$host_torch" != "$want_torch" ] && ok "the host's torch ($host_torch) is not the one tested" ||
  bad "the host and the image have the same torch ($host_torch): the test proves nothing"

# 2. An image whose interpreter has no torch: each device fails, naming the image.
out=$(preflight --python /usr/bin/python3.11 "${mounts[@]}" 2>"$tmp/err")
rc=$?
if [ $rc -eq 1 ] && [ "$(grep -c 'fail: its process wrote no result' <<<"$out")" = 2 ] &&
   grep -q 'must import torch and anygpu.torch.preflight in the image' <<<"$out"; then
  ok "an image without torch: both devices fail, naming the image (exit 1)"
else
  bad "an image without torch: exit $rc: $out"
fi

# 3. Nothing is left behind in TMPDIR (the private directory the container wrote into).
left=$(ls -A "$tmp/scratch")
[ -z "$left" ] && ok "nothing left in TMPDIR" || bad "left in TMPDIR: $left"

# 4. Container options without a container are bad input, before anything starts.
"$anygpu" preflight --config "$tmp/cpu.yaml" --engine podman >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q -- '--engine and --engine-arg need --container IMAGE' "$tmp/err" &&
  ok "--engine without --container: exit 2" || bad "--engine without --container: exit $rc $(cat "$tmp/err")"

exit $failed
