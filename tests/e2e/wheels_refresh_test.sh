#!/usr/bin/env bash
# scripts/refresh_wheels.py against stored copies of PyTorch's release matrix: the releases
# data/wheels.yaml has carry every build the matrix names, a release it lacks is drafted with
# its values marked unverified, and input without the matrix is refused.
set -u
src=$(realpath "$1")
samples=$src/tests/contract/wheels_refresh
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { /usr/bin/python3 "$src/scripts/refresh_wheels.py" "$@" "$src/data/wheels.yaml"; }
run "$samples/RELEASE-2.1-2.3.md" --check >"$tmp/old" || { echo "FAIL 2.1-2.3"; cat "$tmp/old"; fail=1; }
run "$samples/RELEASE-2.11-2.14.md" --check >"$tmp/new"
rc=$?
[ $rc = 1 ] || { echo "FAIL --check exit $rc, expected 1 (2.14 is not in the table)"; fail=1; }
grep -q "the matrix names" "$tmp/new" && { echo "FAIL a 2.11-2.13 build is missing:"; grep "matrix names" "$tmp/new"; fail=1; }
grep -q '^      - version: "2.14"$' "$tmp/new" || { echo "FAIL no 2.14 draft"; cat "$tmp/new"; fail=1; }
for v in cu126 cu130 cu132 rocm7.14; do
  grep -q "name: $v," "$tmp/new" || { echo "FAIL draft lacks $v"; fail=1; }
done
grep -q "unverified: \[latest, cu126 arch list" "$tmp/new" || { echo "FAIL draft values not marked unverified"; fail=1; }
# The draft is YAML that the wheel table's own parser takes (`anygpu wheel --data`).
/usr/bin/python3 - "$tmp/new" <<'PY' || fail=1
import sys, yaml
text = open(sys.argv[1]).read()
block = text[text.index('      - version: "2.14"'):]
rel = yaml.safe_load("releases:\n" + block)["releases"][0]
assert rel["version"] == "2.14" and {v["name"] for v in rel["variants"]} >= {"cu130", "cpu"}, rel
PY
# A wheels.yaml missing a build the matrix names is reported.
sed '/version: "2.12"/,/version: "2.13"/{/name: cu132/d}' "$src/data/wheels.yaml" >"$tmp/w.yaml"
/usr/bin/python3 "$src/scripts/refresh_wheels.py" "$samples/RELEASE-2.11-2.14.md" "$tmp/w.yaml" --check >"$tmp/miss"
grep -q "^2.12: the matrix names cu132" "$tmp/miss" || { echo "FAIL missing cu132 not reported"; cat "$tmp/miss"; fail=1; }
echo "no table here" >"$tmp/bad.md"
/usr/bin/python3 "$src/scripts/refresh_wheels.py" "$tmp/bad.md" "$src/data/wheels.yaml" 2>"$tmp/err"
[ $? = 2 ] && grep -q "Release Compatibility Matrix" "$tmp/err" || { echo "FAIL bad input"; fail=1; }
[ $fail = 0 ] && echo "PASS refresh_wheels.py"
exit $fail
