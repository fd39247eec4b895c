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
"$bin" --root "$here/tests/hosts/mi300x-8x" --no-libs detect --json | head -48
echo
echo "== anygpu vendors"
"$bin" vendors
