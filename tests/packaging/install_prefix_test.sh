#!/usr/bin/env bash
# `cmake --install` (what `make install PREFIX=… DESTDIR=…` runs) into the prefixes users give,
# then `import anygpu; anygpu.detect()` with the interpreter that owns the prefix, started as a
# user starts it: no PYTHONPATH, no LD_LIBRARY_PATH, no ANYGPU_LIBRARY, no ldconfig run.
#   venv   PREFIX=a fresh venv: the package in the venv's site-packages, the library and its
#          worker found beneath the venv (an empty /usr/local hides the configured prefix's),
#          the unit's ExecStart in the venv's bin/.
#   local  PREFIX=/usr/local, DESTDIR-staged, then the staged tree mounted on /usr/local in a
#          private mount namespace: /usr/bin/python3 imports from the directory the install
#          chose because it is on its sys.path, not because a test pointed it there.
# usage: install_prefix_test.sh venv|local BUILD_DIR FIXTURE_HOST MOCK_NVML
# Exit 77 (skipped) when this machine cannot make a private mount namespace.
set -u
mode=$1 build=$2 fixture=$3 mock_nvml=$4
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libdir=lib/$(gcc -print-multiarch)

# A private mount namespace (root, or an unprivileged user namespace mapped to root).
if [ "$(id -u)" = 0 ] && unshare --mount --propagation private true 2>/dev/null; then
  ns() { unshare --mount --propagation private "$@"; }
elif unshare --user --map-root-user --mount true 2>/dev/null; then
  ns() { unshare --user --map-root-user --mount "$@"; }
else
  echo "SKIP: no private mount namespace (unshare --mount) on this machine"
  exit 77
fi

# A host with an NVIDIA GPU and a (mock) NVML: detect() loads it through the library worker,
# so a missing worker shows as an `error` library report.
host=$tmp/host
cp -a "$fixture" "$host"
mkdir -p "$host/usr/$libdir"
cp "$mock_nvml" "$host/usr/$libdir/libnvidia-ml.so.1"

# Imports anygpu as the user would, prints what it loaded and the NVML report.
cat >"$tmp/use.py" <<'PY'
import json, sys
import anygpu
inv = anygpu.detect(root=sys.argv[1])
nvml = [r for r in inv.get("libraries", []) if r.get("api") == "nvml"]
print(json.dumps({"package": anygpu.__file__, "library": anygpu.library_path,
                  "devices": len(inv["devices"]), "nvml": nvml}))
PY
check_use() {  # JSON from use.py, the directory the package must come from, the library path
  local out=$1 site=$2 lib=$3
  /usr/bin/python3 - "$out" "$site" "$lib" <<'PY' || return 1
import json, os, sys
out, site, lib = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    doc = json.loads(out.strip().splitlines()[-1])
except (ValueError, IndexError):
    sys.exit(f"not a JSON line: {out!r}")
problems = []
if os.path.dirname(os.path.dirname(doc["package"])) != site:
    problems.append(f"package from {doc['package']}, expected beneath {site}")
if doc["library"] != lib:
    problems.append(f"library {doc['library']}, expected {lib}")
if doc["devices"] < 1:
    problems.append("no devices")
if [r.get("status") for r in doc["nvml"]] != ["loaded"]:
    problems.append(f"NVML through the worker: {doc['nvml']}")
if problems:
    sys.exit("; ".join(problems))
PY
}

site_of() {  # the directory cmake/python_site_dir.py names for INTERPRETER PREFIX, and its state
  "$1" -E -s "$(dirname "$0")/../../cmake/python_site_dir.py" "$2"
}

case $mode in
venv)
  prefix=$tmp/venv
  /usr/bin/python3 -m venv --without-pip "$prefix" || { echo "FAIL: python3 -m venv"; exit 1; }
  cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 \
    || { echo "FAIL: cmake --install"; cat "$tmp/install.log"; exit 1; }
  grep -q "not on .*sys.path" "$tmp/install.log" && bad "install warned: $(grep -A2 WARNING "$tmp/install.log")"
  site=$("$prefix/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
  [ -f "$site/anygpu/__init__.py" ] || bad "package not in the venv's site-packages $site"
  # An empty /usr/local: a library or worker from the configured prefix cannot stand in.
  cat >"$tmp/run.sh" <<SH
mount -t tmpfs none /usr/local
cd "$tmp" && env -i PATH=/usr/bin:/bin "$prefix/bin/python" "$tmp/use.py" "$host" 2>&1
SH
  out=$(ns bash "$tmp/run.sh")
  check_use "$out" "$site" "$prefix/$libdir/libanygpu.so.0" || bad "venv python: $out"
  unit=$prefix/lib/systemd/system/anygpu-exporter.service
  [ "$(sed -n 's/^ExecStart=\([^ ]*\) .*/\1/p' "$unit")" = "$prefix/bin/anygpu" ] \
    || bad "unit: $(grep ^ExecStart= "$unit"), expected $prefix/bin/anygpu"
  # Without its library the package names every place it looked and the installation's prefix.
  rm "$prefix/$libdir"/libanygpu.so*
  err=$(cd "$tmp" && env -i PATH=/usr/bin:/bin "$prefix/bin/python" -c 'import anygpu' 2>&1)
  for want in "$prefix/$libdir/libanygpu.so.0 (not found)" "installed with prefix $prefix"; do
    case $err in *"$want"*) ;; *) bad "import without the library does not say '$want': $err" ;; esac
  done
  ;;
local)
  stage=$tmp/stage
  DESTDIR=$stage cmake --install "$build" --prefix /usr/local >"$tmp/install.log" 2>&1 \
    || { echo "FAIL: cmake --install"; cat "$tmp/install.log"; exit 1; }
  { read -r site; read -r state; } < <(site_of /usr/bin/python3 /usr/local)
  [ "$state" = on-path ] || bad "/usr/bin/python3 reads no site directory beneath /usr/local ($site)"
  # The other answers: the distribution's own directory for /usr, a warned-about one elsewhere.
  [ "$(site_of /usr/bin/python3 /usr | tr '\n' ' ')" = "/usr/lib/python3/dist-packages on-path " ] \
    || bad "/usr: $(site_of /usr/bin/python3 /usr | tr '\n' ' ')"
  case "$(site_of /usr/bin/python3 /opt/anygpu | tr '\n' ' ')" in
    "/opt/anygpu/lib/python3."*"/site-packages off-path ") ;;
    *) bad "/opt/anygpu: $(site_of /usr/bin/python3 /opt/anygpu | tr '\n' ' ')" ;;
  esac
  [ -f "$stage$site/anygpu/__init__.py" ] || bad "package not in $site: $(cd "$stage" && find . -name __init__.py -path '*anygpu/__init__.py')"
  outside=$(cd "$stage" && find . ! -type d | grep -v '^\./usr/local/')
  [ -z "$outside" ] || bad "installed outside /usr/local: $outside"
  # The staged tree where it would be installed; the real interpreter with its own sys.path.
  cat >"$tmp/run.sh" <<SH
mount --bind "$stage/usr/local" /usr/local
cd "$tmp" && env -i PATH=/usr/bin:/bin /usr/bin/python3 -c 'import sys; print(sys.path)' >"$tmp/sys.path"
cd "$tmp" && env -i PATH=/usr/bin:/bin /usr/bin/python3 "$tmp/use.py" "$host" 2>&1
SH
  out=$(ns bash "$tmp/run.sh")
  grep -qF "'$site'" "$tmp/sys.path" || bad "$site not on /usr/bin/python3's sys.path: $(cat "$tmp/sys.path")"
  check_use "$out" "$site" "/usr/local/$libdir/libanygpu.so.0" || bad "/usr/bin/python3: $out"
  unit=$stage/usr/local/lib/systemd/system/anygpu-exporter.service
  [ "$(sed -n 's/^ExecStart=\([^ ]*\) .*/\1/p' "$unit")" = /usr/local/bin/anygpu ] \
    || bad "unit: $(grep ^ExecStart= "$unit"), expected /usr/local/bin/anygpu"
  ;;
*)
  echo "usage: $0 venv|local BUILD_DIR FIXTURE_HOST MOCK_NVML"
  exit 2
  ;;
esac
[ $fail = 0 ] && echo "PASS: install into $mode prefix, imported by its interpreter"
exit $fail
