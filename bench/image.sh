#!/usr/bin/env bash
# `anygpu image check` against what it replaces: `podman save` of the same image (what a tool
# that reads archives needs first), and `podman run … python -c 'import torch'` is not run (no
# torch in the image). The image: CUDA's own libraries with real .nv_fatbin sections and a torch
# version.py, imported into containers-storage: four of them (about 1.2 GB), or with LARGE=1
# every library of /usr/local/cuda*/lib twice, in site-packages and in /usr/local/cuda (about
# 5 GB, the size issue 28 names). Each check is timed without the cache (--no-cache: the first
# check of an image) and with it (a second check of the same image reads its config and no
# layer). Wall time per call (hyperfine, 1 warm-up, RUNS runs, default 5), peak RSS (GNU time).
# Usage: [LARGE=1] [RUNS=N] bench/image.sh BUILD_DIR   (prints a markdown table)
set -eu
build=${1:?usage: bench/image.sh BUILD_DIR}
bin=$(realpath "$build/anygpu")
hosts=$(cd "$(dirname "$0")/../tests/hosts" && pwd)
cuda=$(ls -d /usr/local/cuda*/lib 2>/dev/null | head -1)
for t in hyperfine podman; do command -v $t >/dev/null || { echo "$t is required" >&2; exit 1; }; done
[ -n "$cuda" ] || { echo "no /usr/local/cuda*/lib with real CUDA libraries" >&2; exit 1; }
tmp=$(mktemp -d)
ref=localhost/anygpu-bench-image:v1
trap 'podman rmi -f $ref >/dev/null 2>&1; rm -rf "$tmp"' EXIT
printf '[containers]\n[engine]\nruntime = "runc"\n' >"$tmp/containers.conf"
export CONTAINERS_CONF=$tmp/containers.conf
site=$tmp/root/usr/local/lib/python3.11/site-packages
mkdir -p "$site/torch/lib" "$site/nvidia/lib"
printf "__version__ = '2.9.1+cu130'\ncuda = '13.0'\nhip = None\n" >"$site/torch/version.py"
if [ "${LARGE:-0}" = 1 ]; then
  mkdir -p "$tmp/root/usr/local/cuda/lib64"
  for l in "$cuda"/lib*.so.*; do
    case $l in *.so.*.*) continue ;; esac  # the soname link's target once, not each name
    cp -L "$l" "$site/nvidia/lib/"
    cp -L "$l" "$tmp/root/usr/local/cuda/lib64/"
  done
else
  for l in libcublasLt.so.13 libcufft.so.12 libnccl.so.2 libcurand.so.10; do
    cp -L "$cuda/$l" "$site/nvidia/lib/"
  done
fi
tar -C "$tmp/root" -cf "$tmp/root.tar" .
podman rmi -f $ref >/dev/null 2>&1 || true
podman import -q "$tmp/root.tar" $ref >/dev/null
rm -rf "$tmp/root" "$tmp/root.tar"
size=$(podman image inspect --format '{{.Size}}' $ref)
podman save -q -o "$tmp/img.tar" $ref
export ANYGPU_CACHE_DIR=$tmp/cache
mkdir "$ANYGPU_CACHE_DIR"
runs=${RUNS:-5}
run() {  # run NAME COMMAND
  hyperfine -N -i --warmup 1 --runs "$runs" --prepare "rm -f $tmp/again.tar" --export-json "$tmp/r.json" \
    "$2" >/dev/null 2>&1
  rm -f "$tmp/again.tar"
  /usr/bin/time -o "$tmp/rss" -f '%M' $2 >/dev/null 2>&1  || true
  rss=$(tail -1 "$tmp/rss")
  /usr/bin/python3 - "$1" "$tmp/r.json" "$rss" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))["results"][0]
print(f"| {sys.argv[1]} | {r['median']*1000:.0f} | {int(sys.argv[3]) / 1024:.1f} |")
PY
}
libs=""; [ "${LARGE:-0}" = 1 ] && libs="every library of $cuda, twice"
echo "image: $((size / 1000000)) MB (${libs:-$cuda: libcublasLt, libcufft, libnccl, libcurand})"
echo "| command | median ms | peak RSS MiB |"
echo "|---|---:|---:|"
run "podman save -o FILE REF (docker-archive)" "podman save -q -o $tmp/again.tar $ref"
# Exit 1 is a verdict (the fixture's driver is older than CUDA 13), not a failure.
check="$bin --root $hosts/h100-8x --no-libs image check --json"
run "anygpu image check --no-cache FILE (the saved archive, first check)" "$check --no-cache $tmp/img.tar"
run "anygpu image check --no-cache REF (containers-storage, no save, first check)" "$check --no-cache $ref"
# The warm-up run keeps the facts; the timed runs read the config and no layer.
run "anygpu image check FILE, second check (cached by image id)" "$check $tmp/img.tar"
run "anygpu image check REF, second check (cached by image id)" "$check $ref"
