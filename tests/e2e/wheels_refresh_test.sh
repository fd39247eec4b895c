#!/usr/bin/env bash
# scripts/refresh_wheels.py against saved pages (tests/contract/wheels_refresh/SOURCES.md):
# PyTorch's release matrix, PyPI's simple page, PyPI wheel METADATA and an installed build's
# arch list. The table agrees with them; a table without 2.14 and 2.15 is regenerated from them
# (--write) into one the wheel parser takes; a stale patch, a missing build and a wrong arch list
# are reported; bad input of every kind is refused with exit 2 naming the file, and randomly
# damaged pages never end in a traceback.
set -u
src=$(realpath "$1")
bin=${2:-}
samples=$src/tests/contract/wheels_refresh
py=/usr/bin/python3
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
refresh() { "$py" "$src/scripts/refresh_wheels.py" "$@"; }
all_sources=("$samples/RELEASE-2.11-2.14.md" --pypi "$samples/pypi-simple-torch.json"
  --metadata "$samples/METADATA-torch-2.14.1" --metadata "$samples/METADATA-torch-2.15.0"
  --arch-report "$samples/arch-report-torch-2.15.0+cu132.json")
expect() {  # expect NAME EXPECTED_RC ACTUAL_RC
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}

refresh "$samples/RELEASE-2.1-2.3.md" "$src/data/wheels.yaml" --check >"$tmp/old"
expect "matrix 2.1-2.3 agrees" 0 $?
refresh "${all_sources[@]}" --wheels "$src/data/wheels.yaml" --check >"$tmp/now"
expect "every saved source agrees with data/wheels.yaml" 0 $?
grep -q "agrees with every source" "$tmp/now" || { echo "FAIL agreement line"; cat "$tmp/now"; fail=1; }

# Regenerate 2.14 and 2.15 from the sources alone.
"$py" - "$src/data/wheels.yaml" "$tmp/w.yaml" <<'PY'
import sys
s = open(sys.argv[1]).read()
a, b = s.index('      - version: "2.14"'), s.index("\n# Vendors whose torch")
open(sys.argv[2], "w").write(s[:a] + s[b:])
PY
refresh "${all_sources[@]}" --wheels "$tmp/w.yaml" --check --write >"$tmp/draft"
expect "a table without 2.14/2.15: --check" 1 $?
"$py" - "$tmp/w.yaml" <<'PY' || fail=1
import sys, yaml
rel = {r["version"]: r for r in next(p for p in yaml.safe_load(open(sys.argv[1]))["packages"]
                                     if p["name"] == "torch")["releases"]}
r14, r15 = rel["2.14"], rel["2.15"]
assert r14["latest"] == "2.14.1" and r15["latest"] == "2.15.0", (r14["latest"], r15["latest"])
assert {v["name"] for v in r14["variants"]} == {"cu126", "cu130", "cu132", "rocm7.14", "xpu",
                                                "cpu"}, r14
cu132 = next(v for v in r15["variants"] if v["name"] == "cu132")
assert cu132["arches"] == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"], cu132
assert "ptx" not in cu132 and "cu132 arch list" not in r15.get("unverified", []), r15
assert "cu130 arch list" in r14["unverified"] and "rocm7.14 gfx list" in r14["unverified"], r14
rocm = next(v for v in r14["variants"] if v["name"] == "rocm7.14")
assert rocm["gfx"], "a new ROCm carries a gfx list"
print("ok   regenerated 2.14 and 2.15")
PY
grep -q "^# Vendors whose torch" "$tmp/w.yaml" || { echo "FAIL --write lost the plugins"; fail=1; }
if [ -n "$bin" ]; then
  "$bin" --root "$src/tests/hosts/cloud-vm-none" --no-libs wheel --data "$tmp/w.yaml" --json \
    >"$tmp/w.json" 2>"$tmp/w.err"
  expect "the regenerated table parses (anygpu wheel --data)" 0 $?
  grep -q '"version": "2.15.0"' "$tmp/w.json" || { echo "FAIL not 2.15.0"; cat "$tmp/w.json" "$tmp/w.err"; fail=1; }
fi
refresh "${all_sources[@]}" --wheels "$tmp/w.yaml" --check >/dev/null
expect "after --write the sources agree" 0 $?

# A stale patch is reported and fixed by --write; a wrong arch list and a missing build reported.
sed 's/latest: "2.14.1"/latest: "2.14.0"/' "$src/data/wheels.yaml" >"$tmp/stale.yaml"
refresh --pypi "$samples/pypi-simple-torch.json" --wheels "$tmp/stale.yaml" --check --write >"$tmp/stale"
expect "stale latest --check" 1 $?
grep -q "^2.14: PyPI's newest patch is 2.14.1, wheels.yaml says 2.14.0" "$tmp/stale" \
  || { echo "FAIL stale latest not reported"; cat "$tmp/stale"; fail=1; }
grep -q 'latest: "2.14.1"' "$tmp/stale.yaml" || { echo "FAIL --write left 2.14.0"; fail=1; }
"$py" - "$src/data/wheels.yaml" "$tmp/ptx.yaml" <<'PY'
import sys
s = open(sys.argv[1]).read()
i = s.index('      - version: "2.15"')
old = '{name: cu132, cuda: "13.2", arches: *turing_to_blackwell}'
j = s.index(old, i)
open(sys.argv[2], "w").write(s[:j] + old[:-1] + ", ptx: sm_120}" + s[j + len(old):])
PY
refresh --arch-report "$samples/arch-report-torch-2.15.0+cu132.json" --wheels "$tmp/ptx.yaml" \
  --check >"$tmp/ptx"
expect "arch list differs --check" 1 $?
grep -q "2.15 cu132 reports cubins .*; wheels.yaml says .* + PTX sm_120" "$tmp/ptx" \
  || { echo "FAIL arch difference not reported"; cat "$tmp/ptx"; fail=1; }
sed '/version: "2.12"/,/version: "2.13"/{/name: cu132/d}' "$src/data/wheels.yaml" >"$tmp/miss.yaml"
refresh "$samples/RELEASE-2.11-2.14.md" --wheels "$tmp/miss.yaml" --check >"$tmp/miss"
grep -q "^2.12: the matrix names cu132" "$tmp/miss" || { echo "FAIL missing cu132 not reported"; cat "$tmp/miss"; fail=1; }
sed '/version: "2.15"/,/unverified/{/name: cu132/d}' "$src/data/wheels.yaml" >"$tmp/nodef.yaml"
refresh --metadata "$samples/METADATA-torch-2.15.0" --wheels "$tmp/nodef.yaml" --check >"$tmp/nodef"
grep -q "^2.15: PyPI's default wheel names cu132" "$tmp/nodef" || { echo "FAIL default build not checked"; cat "$tmp/nodef"; fail=1; }

# PyTorch's own index (PEP 503). Hand-written: download.pytorch.org was not reachable when the
# pages were saved (SOURCES.md). Non-Linux, non-x86_64 and untagged wheels do not count.
cat >"$tmp/index.html" <<'EOF'
<!DOCTYPE html><html><body><h1>Links for torch</h1>
<a href="/whl/cu130/torch-2.16.0%2Bcu130-cp312-cp312-manylinux_2_28_x86_64.whl">torch-2.16.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl</a><br/>
<a href="/whl/cu130/torch-2.16.1%2Bcu130-cp313-cp313t-manylinux_2_28_x86_64.whl">torch-2.16.1+cu130-cp313-cp313t-manylinux_2_28_x86_64.whl</a><br/>
<a href="/whl/rocm7.14/torch-2.16.0%2Brocm7.14-cp312-cp312-manylinux_2_28_x86_64.whl">torch-2.16.0+rocm7.14-cp312-cp312-manylinux_2_28_x86_64.whl</a><br/>
<a href="/whl/cu140/torch-2.16.0%2Bcu140-cp312-cp312-manylinux_2_28_aarch64.whl">torch-2.16.0+cu140-cp312-cp312-manylinux_2_28_aarch64.whl</a><br/>
<a href="/whl/cpu/torch-2.16.0%2Bcpu-cp312-cp312-win_amd64.whl">torch-2.16.0+cpu-cp312-cp312-win_amd64.whl</a><br/>
<a href="/whl/torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl">torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl</a><br/>
</body></html>
EOF
refresh --index "$tmp/index.html" --wheels "$src/data/wheels.yaml" --check >"$tmp/idx"
expect "index with a new release --check" 1 $?
"$py" - "$tmp/idx" <<'PY' || fail=1
import sys, yaml
text = open(sys.argv[1]).read()
rel = yaml.safe_load("r:\n" + text[text.index('      - version: "2.16"'):])["r"][0]
assert rel["latest"] == "2.16.1", rel
names = [v["name"] for v in rel["variants"]]
assert names == ["cu130", "rocm7.14", "xpu", "cpu"], names
print("ok   index draft 2.16")
PY

# Bad input: exit 2, the file named, no traceback.
bad() {  # bad NAME PATTERN ARGS...
  local name=$1 pattern=$2
  shift 2
  refresh "$@" --wheels "$src/data/wheels.yaml" >/dev/null 2>"$tmp/err"
  local rc=$?
  if [ $rc != 2 ] || ! grep -q -- "$pattern" "$tmp/err" || grep -q Traceback "$tmp/err"; then
    echo "FAIL bad input $name: exit $rc"; cat "$tmp/err"; fail=1
  else
    echo "ok   bad input $name"
  fi
}
echo "no table here" >"$tmp/bad.md"
bad "matrix without a table" "bad.md: no 'Release Compatibility Matrix'" "$tmp/bad.md"
printf '## Release Compatibility Matrix\n| v | CUDA |\n| --- | --- |\n| two | CUDA 12.6 |\n' >"$tmp/row.md"
bad "matrix row" "row.md:4: matrix row" "$tmp/row.md"
echo '{"files": [' >"$tmp/trunc.json"
bad "truncated JSON" "trunc.json: not JSON" --pypi "$tmp/trunc.json"
echo '[1, 2]' >"$tmp/list.json"
bad "JSON not a page" "list.json: not a PEP 691" --pypi "$tmp/list.json"
echo '{"files": [{"url": "x"}]}' >"$tmp/nofn.json"
bad "file without a name" "nofn.json: files\[0\]" --pypi "$tmp/nofn.json"
echo '{"files": [{"filename": "torch-2.15.0.tar.gz"}]}' >"$tmp/sdist.json"
bad "no wheel" "sdist.json: no torch X.Y.Z wheel" --pypi "$tmp/sdist.json"
printf 'Metadata-Version: 2.4\nName: numpy\nVersion: 2.0.0\n' >"$tmp/META"
bad "METADATA of another package" "META: not the METADATA of a torch wheel" --metadata "$tmp/META"
printf 'Name: torch\nVersion: 2.15\n' >"$tmp/META2"
bad "METADATA version" "META2: Version" --metadata "$tmp/META2"
echo '{"version": "2.15.0+cu132", "arch_list": ["sm_75", "gfx942"]}' >"$tmp/arch.json"
bad "arch entry" "arch.json: arch_list entry 'gfx942'" --arch-report "$tmp/arch.json"
echo '{"version": "2.15.0+rocm7.14", "arch_list": []}' >"$tmp/rocm.json"
bad "arch report of a ROCm build" "rocm.json: version" --arch-report "$tmp/rocm.json"
echo '{"version": "2.15.0+cu132", "arch_list": ["compute_90", "compute_120"]}' >"$tmp/ptx2.json"
bad "two PTX entries" "ptx2.json: more than one" --arch-report "$tmp/ptx2.json"
echo '<html><a href="x">torch-2.15.0.tar.gz</a>' >"$tmp/noidx.html"
bad "index without tagged wheels" "noidx.html: no Linux x86_64" --index "$tmp/noidx.html"
printf '\xff\xfe{}' >"$tmp/utf.json"
bad "not UTF-8" "utf.json: not UTF-8" --pypi "$tmp/utf.json"
bad "missing file" "nowhere.json" --pypi "$tmp/nowhere.json"
printf 'packages: [\n' >"$tmp/badw.yaml"
refresh --pypi "$samples/pypi-simple-torch.json" --wheels "$tmp/badw.yaml" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "badw.yaml: not a wheel table" "$tmp/err" && echo "ok   bad wheel table" \
  || { echo "FAIL bad wheel table"; cat "$tmp/err"; fail=1; }
refresh >/dev/null 2>&1
expect "no source given" 2 $?

# Randomly damaged pages: every run ends in 0, 1 or 2, never an exception.
"$py" - "$src" "$samples" "$tmp" <<'PY' || fail=1
import contextlib, io, importlib.util, os, random, shutil, sys
src, samples, tmp = sys.argv[1:4]
spec = importlib.util.spec_from_file_location("refresh", src + "/scripts/refresh_wheels.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
rng = random.Random(20261203)
pages = {"--pypi": "pypi-simple-torch.json", "--metadata": "METADATA-torch-2.15.0",
         "--arch-report": "arch-report-torch-2.15.0+cu132.json", "": "RELEASE-2.11-2.14.md"}
runs = 0
for flag, name in pages.items():
    data = open(os.path.join(samples, name), "rb").read()
    for _ in range(150):
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            op, at = rng.randint(0, 2), rng.randrange(len(b))
            if op == 0:
                b[at] = rng.randrange(256)
            elif op == 1:
                del b[at:at + rng.randint(1, 64)]
            else:
                b[at:at] = rng.choice([b"{", b"]", b'"', b"|", b"\n", b"\x00", b"sm_", b"=="])
        path = os.path.join(tmp, "fuzz-" + name)
        open(path, "wb").write(bytes(b))
        argv = ["refresh_wheels.py"] + ([flag, path] if flag else [path]) + [
            "--wheels", src + "/data/wheels.yaml"]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            rc = mod.main(argv)
        assert rc in (0, 1, 2), (name, rc)
        runs += 1
print("ok   %d damaged pages" % runs)
PY
[ $fail = 0 ] && echo "PASS refresh_wheels.py"
exit $fail
