#!/bin/bash
# The current-torch interpreter the Python suites run under beside Debian's torch 1.13: a venv
# of Debian's python3 with the pinned packages of tests/python/requirements-current.txt (PyPI's
# torch is the CUDA build, several GB; it runs on the CPU where no GPU is present).
#
#   tools/torch_venv.sh --ensure   create it where missing, print its python
#   tools/torch_venv.sh --path     print its python, exit 1 naming the command where missing
#
# Both the downloads and the venv live outside the tree (ANYGPU_CACHE, default ~/.cache/anygpu),
# keyed by the requirements and the interpreter, so a fresh checkout reuses them: wheels/ holds
# every wheel once downloaded, venv-current-torch-KEY the installed tree. A venv counts only
# once its stamp is written, after a successful install and import; a half-made one is removed
# and made again. Older keys' venvs are removed when a new one is complete.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
requirements=$here/tests/python/requirements-current.txt
base_python=${ANYGPU_BASE_PYTHON:-/usr/bin/python3}
cache=${ANYGPU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/anygpu}

key=$({ cat "$requirements"; "$base_python" -c 'import sys; print(sys.version)'; } |
  sha256sum | cut -c1-12)
venv=$cache/venv-current-torch-$key
stamp=$venv/anygpu-stamp

case "${1:-}" in
  --path)
    if [ -f "$stamp" ]; then echo "$venv/bin/python"; exit 0; fi
    echo "torch_venv: no current-torch venv at $venv; create it with 'make torch-venv'" \
      "(or tools/torch_venv.sh --ensure)" >&2
    exit 1 ;;
  --ensure) ;;
  *) echo "usage: $0 --ensure | --path" >&2; exit 2 ;;
esac

mkdir -p "$cache/wheels"
exec 9>"$cache/venv-current-torch.lock"
flock 9  # one creator at a time; the others find the stamp afterwards
if [ -f "$stamp" ]; then echo "$venv/bin/python"; exit 0; fi

log=$(mktemp "${TMPDIR:-/tmp}/torch-venv.XXXXXX")
trap 'rm -f "$log"' EXIT
fail() { echo "torch_venv: $1 failed; the last lines of its log:" >&2; tail -n 20 "$log" >&2; exit 1; }

rm -rf "$venv"
"$base_python" -m venv "$venv" >"$log" 2>&1 || fail "$base_python -m venv"
# Wheels already in the cache are not fetched again; only what is missing comes from PyPI.
"$venv/bin/python" -m pip download --quiet --dest "$cache/wheels" --requirement "$requirements" \
  >"$log" 2>&1 || fail "pip download into $cache/wheels"
"$venv/bin/python" -m pip install --quiet --no-index --find-links "$cache/wheels" \
  --requirement "$requirements" >"$log" 2>&1 || fail "pip install from $cache/wheels"
"$venv/bin/python" -c 'import torch, accelerate, pytest, yaml' >"$log" 2>&1 ||
  fail "importing torch, accelerate, pytest and yaml"
date -u +%FT%TZ >"$stamp"
for old in "$cache"/venv-current-torch-*/; do
  [ "${old%/}" = "$venv" ] || rm -rf "$old"
done
echo "$venv/bin/python"
