#!/usr/bin/env bash
# `cmake --install` (what `make install PREFIX=… DESTDIR=…` runs) into a staging directory:
# the FHS layout, libanygpu's SONAME and links, and the three ways to consume it — a C program
# built with pkg-config, a CMake project using find_package(anygpu), and the Python package —
# each run against a fixture host from the staged files alone.
# usage: install_test.sh BUILD_DIR FIXTURE_HOST
set -u
build=$1
fixture=$2
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage
DESTDIR=$stage cmake --install "$build" --prefix /usr >"$tmp/install.log" 2>&1 \
  || { echo "FAIL: cmake --install"; cat "$tmp/install.log"; exit 1; }
libdir=usr/lib/$(gcc -print-multiarch)
for f in usr/bin/anygpu "$libdir/libanygpu.so.0" "$libdir/libanygpu.so" usr/include/anygpu.h \
         "$libdir/pkgconfig/anygpu.pc" "$libdir/cmake/anygpu/anygpuConfig.cmake" \
         "$libdir/cmake/anygpu/anygpuConfigVersion.cmake" "$libdir/cmake/anygpu/anygpuTargets.cmake" \
         usr/lib/python3/dist-packages/anygpu/__init__.py \
         usr/lib/python3/dist-packages/anygpu/torch/__init__.py \
         usr/lib/systemd/system/anygpu-exporter.service \
         usr/share/anygpu/prometheus/anygpu-rules.yml usr/share/anygpu/grafana/anygpu-dashboard.json \
         usr/share/anygpu/kubernetes/anygpu-exporter.yaml usr/share/anygpu/wheels.yaml \
         usr/share/anygpu/registry/vendors.yaml usr/share/anygpu/registry/devices.yaml \
         usr/share/man/man1/anygpu.1.gz usr/share/man/man1/anygpu-exporter.1.gz \
         usr/share/bash-completion/completions/anygpu usr/share/zsh/vendor-completions/_anygpu \
         usr/share/fish/vendor_completions.d/anygpu.fish \
         usr/share/doc/anygpu/README.md usr/share/doc/anygpu/exporter.md; do
  [ -e "$stage/$f" ] || bad "not installed: /$f"
done
# Nothing outside the prefix; no byte code.
outside=$(cd "$stage" && find . ! -type d | grep -v '^\./usr/')
[ -z "$outside" ] || bad "installed outside /usr: $outside"
(cd "$stage" && find . -name '__pycache__' -o -name '*.pyc' | grep -q .) && bad "byte code installed"

soname=$(readelf -d "$stage/$libdir/libanygpu.so.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libanygpu.so.0 ] || bad "SONAME: '$soname', expected libanygpu.so.0"
[ -L "$stage/$libdir/libanygpu.so" ] && [ -L "$stage/$libdir/libanygpu.so.0" ] || bad "links"
readelf -d "$stage/$libdir/libanygpu.so.0" | grep -Eq 'RPATH|RUNPATH' && bad "libanygpu has an rpath"
readelf -d "$stage/usr/bin/anygpu" | grep -Eq 'RPATH|RUNPATH' && bad "anygpu has an rpath"

export LD_LIBRARY_PATH=$stage/$libdir
# C through pkg-config (sysroot: the staged tree).
cat >"$tmp/consumer.c" <<'C'
#include <anygpu.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  char opts[4096];
  snprintf(opts, sizeof opts, "{\"root\": \"%s\", \"no_libs\": true}", argv[1]);
  char *doc = anygpu_detect_json(opts);
  int ok = doc && strstr(doc, "anygpu.inventory/v1") != NULL;
  printf("%s %s\n", anygpu_version(), ok ? "inventory" : doc);
  anygpu_free(doc);
  return ok ? 0 : 1;
}
C
flags=$(PKG_CONFIG_PATH=$stage/$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage \
        PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 \
        pkg-config --cflags --libs anygpu) || bad "pkg-config anygpu"
gcc -Wall -Werror -o "$tmp/consumer" "$tmp/consumer.c" $flags || bad "C consumer does not build"
[ -x "$tmp/consumer" ] && { "$tmp/consumer" "$fixture" | grep -q "inventory" || bad "C consumer"; }
[ "$(PKG_CONFIG_PATH=$stage/$libdir/pkgconfig pkg-config --modversion anygpu)" = \
  "$("$stage/usr/bin/anygpu" --version | awk '{print $2}')" ] || bad "pkg-config version"

# C++ through find_package(anygpu) (the package is relocatable: found beneath the stage).
mkdir -p "$tmp/cm"
cp "$tmp/consumer.c" "$tmp/cm/consumer.c"
cat >"$tmp/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(anygpu 0.1 REQUIRED)
add_executable(consumer consumer.c)
target_link_libraries(consumer PRIVATE anygpu::anygpu)
CM
if env -u CMAKE_C_COMPILER_LAUNCHER cmake -S "$tmp/cm" -B "$tmp/cm/b" -DCMAKE_PREFIX_PATH="$stage/usr" >"$tmp/cm.log" 2>&1 \
   && cmake --build "$tmp/cm/b" >>"$tmp/cm.log" 2>&1; then
  "$tmp/cm/b/consumer" "$fixture" | grep -q inventory || bad "find_package consumer"
else
  bad "find_package(anygpu) consumer: $(tail -15 "$tmp/cm.log")"
fi

# Python from the staged dist-packages: the library found through the installation's note
# (relative to the package), not the loader path.
out=$(cd "$tmp" && env -u ANYGPU_LIBRARY -u LD_LIBRARY_PATH PYTHONPATH="$stage/usr/lib/python3/dist-packages" /usr/bin/python3 -c '
import sys, anygpu
inv = anygpu.detect(root=sys.argv[1], no_libs=True)
print(anygpu.__file__, anygpu.library_path, len(inv["devices"]))' "$fixture" 2>&1) || bad "python: $out"
case "$out" in "$stage/usr/lib/python3/dist-packages/anygpu/__init__.py $stage/$libdir/libanygpu.so.0 "*) ;;
  *) bad "python imported another anygpu or library: $out" ;; esac
grep -qx "LIBRARY = \"/$libdir/libanygpu.so.0\"" "$stage/usr/lib/python3/dist-packages/anygpu/_installed.py" \
  || bad "_installed.py: $(cat "$stage/usr/lib/python3/dist-packages/anygpu/_installed.py")"
grep -qx 'ExecStart=/usr/bin/anygpu exporter .*' "$stage/usr/lib/systemd/system/anygpu-exporter.service" \
  || bad "unit: $(grep ExecStart "$stage/usr/lib/systemd/system/anygpu-exporter.service")"

"$stage/usr/bin/anygpu" --root "$fixture" --no-libs detect --json >/dev/null || bad "installed CLI"
[ $fail = 0 ] && echo "PASS: install layout and consumers"
exit $fail
