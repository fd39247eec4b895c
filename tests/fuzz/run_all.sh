#!/bin/sh
# Runs every libFuzzer target in DIR for SECONDS each over a scratch copy of its seed corpus
# (the checked-in corpus is never written). Fails if any target crashes, leaks, times out or
# breaks an invariant; the reproducer is left in the scratch artifacts directory and named in
# the output. Usage: run_all.sh BUILD/tests/fuzz SECONDS
set -u
dir=${1:?usage: run_all.sh DIR SECONDS}
seconds=${2:?usage: run_all.sh DIR SECONDS}
here=$(cd "$(dirname "$0")" && pwd)
# One target per seed corpus directory (the same names as targets.cmake).
targets=$(cd "$here/corpus" && ls -d */ | tr -d /)

work=$(mktemp -d "${TMPDIR:-/tmp}/anygpu-fuzz-run.XXXXXX")
status=0
for name in $targets; do
  bin="$dir/${name}_fuzz"
  if [ ! -x "$bin" ]; then
    echo "FAIL $name: $bin not built"
    status=1
    continue
  fi
  mkdir -p "$work/$name/corpus" "$work/$name/artifacts"
  cp -R "$here/corpus/$name/." "$work/$name/corpus/"
  log="$work/$name/log"
  start=$(date +%s)
  # -rss_limit_mb: above ASan's own overhead; -timeout: one input may take this long.
  "$bin" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 \
    -artifact_prefix="$work/$name/artifacts/" "$work/$name/corpus" >"$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  if [ "$rc" -ne 0 ]; then
    echo "FAIL $name (exit $rc after ${took}s, ${execs:-?} execs); log: $log"
    grep -E 'ERROR|invariant failed|SUMMARY|Test unit written' "$log" | head -n 20
    status=1
  else
    echo "ok   $name: ${took}s, ${execs:-?} execs, corpus $(ls "$work/$name/corpus" | wc -l) files"
  fi
done
if [ "$status" -eq 0 ]; then rm -rf "$work"; else echo "artifacts and logs kept in $work"; fi
exit $status
