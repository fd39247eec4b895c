#!/usr/bin/env bash
# `make run`: what anygpu sees on this machine, then on a simulated 8-GPU server.
set -euo pipefail
bin=${1:-build/anygpu}
here=$(cd "$(dirname "$0")/.." && pwd)

echo "== anygpu detect (this machine)"
"$bin" detect
echo
echo "== anygpu --root tests/hosts/h100-8x detect (a captured 8x H100 server)"
"$bin" --root "$here/tests/hosts/h100-8x" --no-libs detect
echo
echo "== anygpu --root tests/hosts/mi300x-8x detect --json (the start of it)"
"$bin" --root "$here/tests/hosts/mi300x-8x" --no-libs detect --json | sed -n '1,48p'  # sed reads it all: no SIGPIPE under pipefail
echo
echo "== anygpu check examples/runtime-spec.yaml (the 8x H100 server; Debian's torch is a CPU build)"
"$bin" --root "$here/tests/hosts/h100-8x" --no-libs check "$here/examples/runtime-spec.yaml" \
  --python /usr/bin/python3 || echo "(exit $?: the contract is not met)"
echo
echo "== anygpu check on this machine"
"$bin" check "$here/examples/runtime-spec.yaml" --python /usr/bin/python3 || echo "(exit $?: the contract is not met)"
echo
echo "== anygpu select --config examples/accelerator-config.yaml -v (the 8x MI300X server)"
"$bin" --root "$here/tests/hosts/mi300x-8x" --no-libs -v select --config "$here/examples/accelerator-config.yaml"
echo
echo "== anygpu select on this machine (CPU fallback)"
"$bin" select --config "$here/examples/accelerator-config.yaml" || true
echo
echo "== anygpu vendors"
"$bin" vendors
echo
echo "== anygpu run -- python3 examples/train.py --epochs 2 (this machine; the code names no device)"
ANYGPU_LIBRARY="$(cd "$(dirname "$bin")" && pwd)/libanygpu.so" PYTHONPATH="$here/python" \
  "$bin" run -- /usr/bin/python3 "$here/examples/train.py" --epochs 2 --samples 8192
