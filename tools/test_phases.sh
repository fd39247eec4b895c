#!/bin/bash
# Runs `make test`'s phases one by one in this checkout and prints each one's wall time as a
# Markdown table (docs/testing.md records them). `--cold` compiles every file as a first build on
# a new machine does (ccache's recache mode: nothing is taken from the cache, every result is
# stored, so the next build is warm); without it the machine's cache is used.
# Usage: tools/test_phases.sh [--cold] [JOBS]
set -eu
cold=0
[ "${1:-}" = --cold ] && { cold=1; shift; }
jobs=${1:-$(nproc)}
cd "$(dirname "$0")/.."
[ "$cold" = 1 ] && export CCACHE_RECACHE=1
scratch=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-phases.XXXXXX")
rows=()
phase() {
  local name=$1 start end
  shift
  start=$(date +%s)
  "$@" >"$scratch/$name.log" 2>&1 || { echo "phase $name failed; its log:"; tail -n 40 "$scratch/$name.log"; exit 1; }
  end=$(date +%s)
  rows+=("| $name | $((end - start)) s |")
}
total_start=$(date +%s)
phase deps make deps
phase build make build JOBS="$jobs"
phase asan make asan JOBS="$jobs"
phase release make release JOBS="$jobs"
phase torch-venv make torch-venv
phase ctest-build env TMPDIR="$scratch" ctest --test-dir build --output-on-failure -j "$jobs"
phase ctest-asan env TMPDIR="$scratch" ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE 'system|timing'
rows+=("| total | $(($(date +%s) - total_start)) s |")
echo "| phase ($([ "$cold" = 1 ] && echo cold || echo warm) cache, $jobs jobs) | wall time |"
echo "|---|---|"
printf '%s\n' "${rows[@]}"
rm -rf "$scratch"
