#!/usr/bin/env bash
# The CLI with vendor libraries that crash, abort, exit or print (tests/mocklibs): `detect
# --json` stays one parseable document, `select` stays eval-able with the right exit code, the
# library's status says what happened, and nothing the library printed reaches stdout.
set -u
bin=$1
hosts=$2
mocks=$3
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
py=/usr/bin/python3

# mock:expected-status:what the message names (signal or exit code; '-' for nothing)
cases="nvml_init_segv:crashed:SIGSEGV_(signal_11) nvml_init_abort:crashed:SIGABRT_(signal_6)
nvml_ctor_segv:crashed:SIGSEGV_(signal_11) nvml_init_exit:exited:exited_with_code_0
nvml_stdout:loaded:bytes_to_stdout/stderr nvml_hang:timeout:did_not_answer"
for c in $cases; do
  mock=${c%%:*}; rest=${c#*:}; status=${rest%%:*}; field=${rest#*:}
  root=$tmp/$mock
  cp -a "$hosts/h100-8x" "$root"
  mkdir -p "$root/usr/lib/x86_64-linux-gnu"
  cp "$mocks/mock_$mock.so" "$root/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"
  export ANYGPU_LIB_TIMEOUT_MS=300

  "$bin" --root "$root" detect --json >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 0 ] && ok "$mock: detect exit 0" || bad "$mock: detect exit $rc ($(head -c 300 "$tmp/err"))"
  $py - "$tmp/out" "$status" "$field" <<'PY' && ok "$mock: detect --json" || bad "$mock: detect --json: $(head -c 300 "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))
lib = [l for l in d["libraries"] if l["vendor"] == "nvidia"]
assert len(lib) == 1 and lib[0]["status"] == sys.argv[2], lib
assert sys.argv[3].replace("_", " ") in lib[0]["message"], lib
assert len(d["devices"]) == 8, d["devices"]
assert all(x["status"] == "ok" and x["arch"] == "sm_90" for x in d["devices"]), d["devices"]
PY
  # The library's own bytes never appear raw (a warning may quote its first line, escaped).
  grep -q '^export CUDA_VISIBLE_DEVICES=pwned\|{"mock-nvml": "raw' "$tmp/out" &&
    bad "$mock: library text on detect's stdout"

  out=$("$bin" --root "$root" select 2>"$tmp/err")
  rc=$?
  [ $rc -eq 0 ] && ok "$mock: select exit 0" || bad "$mock: select exit $rc"
  case "$out" in *pwned*|*mock-nvml*) bad "$mock: library text on select's stdout";; esac
  (
    unset CUDA_VISIBLE_DEVICES ANYGPU_VENDOR
    eval "$out" || exit 1
    [ "$ANYGPU_VENDOR" = nvidia ] && [ "$CUDA_VISIBLE_DEVICES" = 0,1,2,3,4,5,6,7 ]
  ) && ok "$mock: select output evals to the 8 GPUs" || bad "$mock: select output: $out"
  "$bin" --root "$root" select --format json | $py -c 'import json,sys; json.load(sys.stdin)' \
    && ok "$mock: select --format json parses" || bad "$mock: select --format json"
done

# The worker subcommand is internal: run by hand it refuses, exit 2.
"$bin" __worker probe 1 </dev/null 3>&- 2>"$tmp/err"
[ $? -eq 2 ] && grep -q internal "$tmp/err" && ok "__worker refuses a direct call" \
  || bad "__worker direct call"
exit $fail
