#!/usr/bin/env bash
# The Debian packages `make deb` builds (cpack -G DEB in the build tree), checked as Debian
# checks packages and then used on a fresh Debian 12:
#   - lintian finds no error or warning (overrides, if any, travel in the package with a reason);
#   - every file lies beneath /usr (FHS); dependencies come from dpkg-shlibdeps (libc6 with a
#     version, libanygpu0's libyaml-cpp), libanygpu0 has a shlibs file and the ldconfig trigger;
#   - in a debootstrap'd bookworm minbase (cached, see debian12_rootfs.sh): dpkg -i fails only
#     for missing dependencies, apt-get -f installs them, the exporter unit is installed but not
#     enabled, `anygpu detect` runs, `anygpu --root FIXTURE --no-libs detect --json` equals the
#     fixture's golden expected.json byte for byte, the unit's ExecStart command line (with the
#     fixture's sysfs mounted at /sys) serves its 8 GPUs on /metrics and /healthz on loopback
#     (a private network namespace) and exits 0 on SIGTERM;
#   - apt-get purge (and autoremove of what it pulled in) leaves the file system as it was.
# usage: deb_test.sh BUILD_DIR FIXTURE_HOST
set -u
build=$(cd "$1" && pwd)
fixture=$2
here=$(cd "$(dirname "$0")" && pwd)
fail=0
bad() { echo "FAIL: $*"; fail=1; }
for tool in cpack dpkg-deb lintian unshare chroot ip curl; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is required (make test installs it)"; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "FAIL: needs root (chroot, mount namespaces)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- build the packages (what `make deb` runs) --------------------------------------------
(cd "$build" && cpack -G DEB -B "$tmp/cpack") >"$tmp/cpack.log" 2>&1 \
  || { echo "FAIL: cpack"; tail -30 "$tmp/cpack.log"; exit 1; }
mkdir -p "$tmp/debs"
mv "$tmp"/cpack/*.deb "$tmp/debs/"
debs=$(ls "$tmp"/debs/*.deb)
for pkg in anygpu libanygpu0 libanygpu-dev; do
  ls "$tmp"/debs/${pkg}_*.deb >/dev/null 2>&1 || bad "no $pkg package built"
done
field() { dpkg-deb -f "$tmp"/debs/"$1"_*.deb "$2"; }
echo "anygpu Depends: $(field anygpu Depends)"
echo "libanygpu0 Depends: $(field libanygpu0 Depends)"
field anygpu Depends | grep -Eq 'libc6 \(>= 2\.[0-9]+\)' || bad "anygpu: no computed libc6 dependency"
field anygpu Depends | grep -q "libanygpu0 (= $(field anygpu Version))" || bad "anygpu: libanygpu0 (=)"
field libanygpu0 Depends | grep -q 'libyaml-cpp0.7' || bad "libanygpu0: libyaml-cpp0.7 not computed"
field libanygpu0 Depends | grep -q 'libstdc++6' || bad "libanygpu0: libstdc++6 not computed"
dpkg-deb --ctrl-tarfile "$tmp"/debs/libanygpu0_*.deb | tar -xO ./shlibs 2>/dev/null \
  | grep -q '^libanygpu 0 libanygpu0' || bad "libanygpu0: no shlibs file"
dpkg-deb --ctrl-tarfile "$tmp"/debs/libanygpu0_*.deb | tar -xO ./triggers 2>/dev/null \
  | grep -q 'activate-noawait ldconfig' || bad "libanygpu0: no ldconfig trigger"
for deb in $debs; do
  outside=$(dpkg-deb --fsys-tarfile "$deb" | tar -t | grep -Ev '^\./$|^\./usr/(|bin/.*|lib/.*|include/.*|share/.*)$')
  [ -z "$outside" ] || bad "$(basename "$deb"): files outside /usr: $outside"
done

# Lintian (Debian's package checker): no error, no warning.
lintian --fail-on error,warning --no-tag-display-limit $debs >"$tmp/lintian.log" 2>&1 \
  || { bad "lintian:"; cat "$tmp/lintian.log"; }
grep -E '^[EW]:' "$tmp/lintian.log" && bad "lintian reports the above"

# --- a fresh Debian 12 --------------------------------------------------------------------
tarball=$("$here/debian12_rootfs.sh") || { echo "FAIL: no Debian 12 root file system"; exit 1; }
root=$tmp/root
mkdir -p "$root"
tar -C "$root" --numeric-owner -xf "$tarball" || { echo "FAIL: extracting $tarball"; exit 1; }
# Downloaded dependencies are kept beside the root file system cache for the next run.
archives=$(dirname "$tarball")/apt-archives
mkdir -p "$archives/partial"

snapshot() {  # every path but the package manager's own state and logs
  (cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp \
     -o -path ./var/lib/dpkg -o -path ./var/lib/apt -o -path ./var/cache -o -path ./var/log \
     -o -path ./run \) -prune -o -print | grep -v '^\./etc/ld\.so\.cache$' | sort)
}
snapshot >"$tmp/before"
cp $debs "$root/tmp/"
cp -a "$fixture" "$root/tmp/fixture"
unit=usr/lib/systemd/system/anygpu-exporter.service

# Everything in the chroot runs in a private mount namespace: its mounts vanish with it.
cat >"$tmp/in-chroot.sh" <<'SH'
set -u
root=$1 archives=$2 log=$3
mount -t proc proc "$root/proc"
mount --bind "$archives" "$root/var/cache/apt/archives"
run() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
# dpkg alone must stop at the missing dependencies; apt-get -f resolves what dpkg-shlibdeps put there.
if run sh -c 'dpkg -i /tmp/*.deb' >>"$log" 2>&1; then echo "FAIL: dpkg -i succeeded without dependencies"; fi
run apt-get -f install -y -q --no-install-recommends >>"$log" 2>&1 || { echo "FAIL: apt-get -f install"; tail -20 "$log"; }
for p in anygpu libanygpu0 libanygpu-dev; do
  run dpkg-query -W -f='${Status}\n' $p | grep -q "install ok installed" || echo "FAIL: $p not installed"
done
umount "$root/var/cache/apt/archives" "$root/proc"
SH
unshare --mount --propagation private bash "$tmp/in-chroot.sh" "$root" "$archives" "$tmp/apt.log" >"$tmp/chroot.out" 2>&1
cat "$tmp/chroot.out"
grep -q FAIL "$tmp/chroot.out" && fail=1

[ -f "$root/$unit" ] || bad "unit not installed at /$unit"
ls "$root"/etc/systemd/system/*.wants/anygpu-exporter.service >/dev/null 2>&1 \
  && bad "the exporter unit is enabled; it must be installed disabled"
inroot() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
inroot anygpu --version || bad "anygpu --version in the chroot"
inroot anygpu detect >"$tmp/detect.txt" 2>&1 || bad "anygpu detect: $(cat "$tmp/detect.txt")"
inroot anygpu --root /tmp/fixture --no-libs detect --json >"$tmp/fixture.json" 2>"$tmp/fixture.err" \
  || bad "anygpu --root detect --json: $(cat "$tmp/fixture.err")"
cmp -s "$fixture/expected.json" "$tmp/fixture.json" \
  || { bad "installed anygpu differs from the golden $(basename "$fixture")/expected.json"; diff -u "$fixture/expected.json" "$tmp/fixture.json" | head -20; }
inroot sh -c 'ldd /usr/lib/*/libanygpu.so.0' | grep -q "not found" && bad "libanygpu.so.0 has unresolved libraries"

# The exporter as the unit runs it: ExecStart's command line, verbatim, on a loopback of its own.
execstart=$(sed -n 's/^ExecStart=//p' "$root/$unit")
[ -n "$execstart" ] || bad "no ExecStart in the unit"
cat >"$tmp/exporter.sh" <<'SH'
set -u
root=$1 execstart=$2 out=$3
ip link set lo up
mount -t proc proc "$root/proc"
# The fixture's sysfs where the host's would be, as the DaemonSet mounts the node's /sys.
mount --bind -o ro "$root/tmp/fixture/sys" "$root/sys"
chroot "$root" env -i $execstart 2>"$out.err" &
pid=$!
port=$(echo "$execstart" | sed -n 's/.*--listen [^ ]*:\([0-9]*\).*/\1/p')
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/metrics" >"$out.metrics" 2>/dev/null \
    && grep -q '^anygpu_gpu_utilization_ratio' "$out.metrics" && break
  sleep 0.1
done
curl -sf "http://127.0.0.1:$port/healthz" >"$out.healthz" || echo "FAIL: /healthz"
kill -TERM $pid
wait $pid
echo "exporter exit $?"
umount "$root/sys" "$root/proc"
SH
unshare --net --mount --propagation private bash "$tmp/exporter.sh" "$root" "$execstart" "$tmp/exp" >"$tmp/exporter.out" 2>&1
cat "$tmp/exporter.out"
grep -q FAIL "$tmp/exporter.out" && fail=1
gpus=$(grep -c '^anygpu_gpu_utilization_ratio{' "$tmp/exp.metrics" 2>/dev/null)
[ "$gpus" = 8 ] || bad "exporter under the unit's command line: $gpus GPUs' utilization, expected 8: $(cat "$tmp/exp.err" 2>/dev/null)"
grep -qx ok "$tmp/exp.healthz" || bad "/healthz: $(cat "$tmp/exp.healthz")"
grep -qx "exporter exit 0" "$tmp/exporter.out" || bad "exporter did not exit 0 on SIGTERM"

# --- purge: nothing of anygpu left, nothing else changed ------------------------------------
rm -rf "$root/tmp/"*
cat >"$tmp/purge.sh" <<'SH'
set -u
root=$1 log=$2
mount -t proc proc "$root/proc"
run() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
run apt-get purge -y -q anygpu libanygpu-dev libanygpu0 >>"$log" 2>&1 || echo "FAIL: apt-get purge"
run apt-get autoremove --purge -y -q >>"$log" 2>&1 || echo "FAIL: apt-get autoremove"
run dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | grep -E ' (anygpu|libanygpu)' && echo "FAIL: still known to dpkg"
umount "$root/proc"
SH
unshare --mount --propagation private bash "$tmp/purge.sh" "$root" "$tmp/apt.log" >"$tmp/purge.out" 2>&1
cat "$tmp/purge.out"
grep -q FAIL "$tmp/purge.out" && fail=1
snapshot >"$tmp/after"
if ! diff "$tmp/before" "$tmp/after" >"$tmp/left"; then
  bad "purge did not restore the file system:"; head -30 "$tmp/left"
fi
[ $fail = 0 ] && echo "PASS: Debian packages on a fresh Debian 12"
exit $fail
