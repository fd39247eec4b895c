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
# What images hold is cached by image id: a private cache, not the user's.
mkdir "$tmp/cache"
export ANYGPU_CACHE_DIR=$tmp/cache

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
# By reference: the image as containers-storage keeps it (no save), under its short name.
out=$("$anygpu" --root "$tests/hosts/h100-8x" --no-libs image check --json \
  anygpu-test-image-check:v1 2>"$tmp/err")
rc=$?
python3 - "$id" "$out" <<'PY' && [ $rc -eq 0 ] && ok "containers-storage by reference" ||
import json, sys
want, d = sys.argv[1], json.loads(sys.argv[2])
assert d["image"] == {"id": "sha256:" + want, "ref": "localhost/anygpu-test-image-check:v1"}, d
assert [c["archs"] for c in d["code_objects"]] == [["sm_80", "sm_90", "compute_90"]], d
PY
  { cat "$tmp/err"; bad "containers-storage by reference (exit $rc): $out"; }

# `run --container` judges the image it would start, by reference, for the run's devices, and
# not the host's Python: a contract asking for a torch the host lacks does not stop it.
run_c() { (cd "$tmp" && "$anygpu" --root "$tests/hosts/$1" --no-libs -v run --dry-run \
  --container "${@:2}" -- python3 train.py); }
printf 'dependencies:\n  - name: torch\n    version_range: ">=99"\n' >"$tmp/spec.yaml"
run_c h100-8x anygpu-test-image-check:v1 --spec "$tmp/spec.yaml" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "checked for 8 device(s): ok" "$tmp/err" &&
   grep -q "runtime contract .*spec.yaml: passed" "$tmp/err"; then
  ok "run --container: image checked ok on h100-8x, the host's torch not judged"
else
  cat "$tmp/err"; bad "run --container on h100-8x: exit $rc"
fi
run_c mi300x-8x anygpu-test-image-check:v1 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 125 ] && grep -q "torch.vendor-mismatch" "$tmp/err" &&
   grep -q "does not fit the devices of this run" "$tmp/err" &&
   grep -q "facts from the cache .*, no layer read" "$tmp/err"; then
  ok "run --container: a CUDA image refused on mi300x-8x (125, finding named), no layer read again"
else
  cat "$tmp/err"; bad "run --container on mi300x-8x: exit $rc"
fi
run_c mi300x-8x anygpu-test-image-check:v1 --no-check >"$tmp/out" 2>"$tmp/err" &&
  ok "run --container --no-check starts it anyway" || { cat "$tmp/err"; bad "--no-check"; }
run_c h100-8x localhost/anygpu-test-not-stored:v1 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "not checked: not in containers-storage (.*) and the Docker store" "$tmp/err"; then
  ok "run --container: an image not stored here is said to be unchecked"
else
  cat "$tmp/err"; bad "run --container, image not stored: exit $rc"
fi
(cd "$tmp" && "$anygpu" --root "$tests/hosts/h100-8x" --no-libs run --dry-run \
  --spec "$tmp/spec.yaml" -- python3 train.py) >"$tmp/out" 2>"$tmp/err"
[ $? -eq 125 ] && grep -q "PyTorch version" "$tmp/err" &&
  ok "a native run still judges the host's Python against the same contract" ||
  { cat "$tmp/err"; bad "native run with the torch>=99 contract"; }

# Whiteouts as the store keeps them (character devices 0/0, opaque-directory xattrs): an image
# with two layers, loaded with `podman load`, must show only what survives in the top layer.
loaded=localhost/anygpu-test-image-wh:v1
python3 - "$here" "$tmp" "$loaded" <<'PY' || bad "cannot build the whiteout image"
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import make_images as mk
w = Path(sys.argv[2])
sm50 = w / "old.so"; mk.shared_library(sm50, w, fatbins=[mk.fatbin_container([(2, 50)])])
sm90 = w / "new.so"; mk.shared_library(sm90, w, fatbins=[mk.fatbin_container([(2, 90)])])
lower = mk.layer_tar({"opt/a/liba.so": sm50.read_bytes(), "opt/b/libb.so": sm50.read_bytes()})
upper = mk.layer_tar({"opt/b/new.so": sm90.read_bytes()}, whiteouts=["opt/a/liba.so"],
                     opaque=["opt/b"])
mk.docker_archive(w / "wh.tar", [lower, upper], [], tag=sys.argv[3])
PY
podman rmi -f "$loaded" >/dev/null 2>&1
if podman load -q -i "$tmp/wh.tar" >/dev/null; then
  out=$("$anygpu" --root "$tests/hosts/h100-8x" --no-libs image check --json "$loaded" 2>"$tmp/err")
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert [c["file"] for c in d["code_objects"]] == ["/opt/b/new.so"], d' "$out" &&
    ok "containers-storage whiteouts and opaque directories applied" ||
    { cat "$tmp/err"; bad "containers-storage whiteouts: $out"; }
  podman rmi -f "$loaded" >/dev/null 2>&1
else
  bad "podman load of the whiteout image"
fi
exit $failed
