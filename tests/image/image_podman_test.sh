#!/bin/bash
# `anygpu image check` on archives real Podman writes: a root file system with a CUDA torch and
# a library carrying a .nv_fatbin section (make_images.py) is imported with `podman import`,
# then saved as docker-archive, oci-archive and oci-dir. Each form must give the image id
# Podman reports (the config digest), the same frameworks and code objects, exit 0 on h100-8x
# and exit 1 on mi300x-8x (a CUDA build on AMD devices). Podman is set up as the other Podman
# tests do (runc, fixed ulimits through CONTAINERS_CONF).
# Usage: image_podman_test.sh ANYGPU TESTS_DIR
set -u
anygpu=$(realpath "${1:?usage: image_podman_test.sh ANYGPU TESTS_DIR}")
tests=$(realpath "${2:?usage: image_podman_test.sh ANYGPU TESTS_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
for t in podman cc python3; do
  command -v "$t" >/dev/null || { echo "FAIL: $t is required"; exit 1; }
done
image=localhost/anygpu-test-image-check:v1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-image.XXXXXX")
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

python3 - "$here" "$tmp" <<'PY' || { echo "FAIL: cannot build the root file system"; exit 1; }
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import make_images as mk
work = Path(sys.argv[2])
root = work / "rootfs"
lib = work / "libtorch_cuda.so"
mk.shared_library(lib, work, fatbins=[mk.fatbin_container([(2, 80), (2, 90), (1, 90)])])
files = mk.torch_files("2.5.1+cu124", cuda="12.4")
files[mk.SITE + "/torch/lib/libtorch_cuda.so"] = lib.read_bytes()
for path, data in files.items():
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_bytes(data)
PY
tar -C "$tmp/rootfs" -cf "$tmp/rootfs.tar" .
podman rmi -f "$image" >/dev/null 2>&1
podman import -q --change "ENV CUDA_VERSION=12.4.1" "$tmp/rootfs.tar" "$image" >/dev/null ||
  { echo "FAIL: podman import"; exit 1; }
id=$(podman image inspect --format '{{.Id}}' "$image")
podman save -q -o "$tmp/docker.tar" "$image" || bad "podman save docker-archive"
podman save -q --format oci-archive -o "$tmp/oci.tar" "$image" || bad "podman save oci-archive"
podman save -q --format oci-dir -o "$tmp/oci-dir" "$image" || bad "podman save oci-dir"

for form in docker.tar oci.tar oci-dir; do
  out=$("$anygpu" --root "$tests/hosts/h100-8x" --no-libs image check --json "$tmp/$form" 2>"$tmp/err")
  rc=$?
  [ $rc -eq 0 ] || { cat "$tmp/err"; bad "$form: exit $rc on h100-8x"; continue; }
  python3 - "$id" "$out" <<'PY' && ok "$form: id, torch, sm_80 sm_90 compute_90, all ok" || bad "$form: $out"
import json, sys
want, d = sys.argv[1], json.loads(sys.argv[2])
assert d["image"]["id"] == "sha256:" + want, d["image"]
assert [(f["name"], f["version"]) for f in d["frameworks"]] == [("torch", "2.5.1+cu124")], d
libs = [(c["file"], c["archs"]) for c in d["code_objects"]]
assert libs == [("/usr/local/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so",
                 ["sm_80", "sm_90", "compute_90"])], libs
assert {x["verdict"] for x in d["devices"]} == {"ok"} and len(d["devices"]) == 8, d["devices"]
PY
  "$anygpu" --root "$tests/hosts/mi300x-8x" --no-libs image check "$tmp/$form" >"$tmp/out" 2>&1
  rc=$?
  if [ $rc -eq 1 ] && grep -q "torch.vendor-mismatch" "$tmp/out"; then
    ok "$form: exit 1 on mi300x-8x (CUDA build on AMD devices)"
  else
    cat "$tmp/out"; bad "$form: exit $rc on mi300x-8x"
  fi
done
exit $failed
