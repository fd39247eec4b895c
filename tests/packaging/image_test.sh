#!/usr/bin/env bash
# The OCI image `make image` builds (tools/build_image.py): offline from the build's binary,
# only the binary, the libraries its ELF dependencies resolve to and pci.ids inside, non-root,
# and working with a read-only root — then the existing Prometheus end-to-end test, a real
# Prometheus scraping the exporter, run against the image instead of the binary.
# usage: image_test.sh SOURCE_DIR ANYGPU FIXTURE DASHBOARD
set -u
src=$1
bin=$2
fixture=$3
dashboard=$4
fail=0
bad() { echo "FAIL: $*"; fail=1; }
command -v podman >/dev/null || { echo "FAIL: podman is required (make test installs it)"; exit 1; }
tmp=$(mktemp -d)
tag=localhost/anygpu-test-image-$$:latest
cleanup() { podman rmi -f "$tag" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
# This machine's Podman needs runc and explicit ulimits; the image bakes in neither.
cat >"$tmp/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1000:1000"]
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF="$tmp/containers.conf"

/usr/bin/python3 "$src/tools/build_image.py" "$bin" "$tmp/dist" --tag "$tag" >"$tmp/build.out" 2>"$tmp/build.err" \
  || { echo "FAIL: build_image"; cat "$tmp/build.err"; exit 1; }
[ "$(tail -1 "$tmp/build.out")" = "$tag" ] || bad "build_image printed $(cat "$tmp/build.out")"
version=$("$bin" --version | awk '{print $2}')
tar -tf "$tmp/dist/anygpu-image-$version.oci.tar" | grep -qx index.json || bad "no OCI archive"

inspect() { podman image inspect --format "$1" "$tag"; }
[ "$(inspect '{{.Config.User}}')" = "65534:65534" ] || bad "user: $(inspect '{{.Config.User}}')"
[ "$(inspect '{{json .Config.Entrypoint}}')" = '["/usr/bin/anygpu"]' ] || bad "entrypoint: $(inspect '{{json .Config.Entrypoint}}')"
[ "$(inspect '{{json .Config.Cmd}}')" = '["exporter"]' ] || bad "cmd: $(inspect '{{json .Config.Cmd}}')"

# What is inside: the binary, shared libraries, the loader, pci.ids, passwd/group; no shell.
cid=$(podman create "$tag")
podman export "$cid" | tar -t | sort >"$tmp/files"
podman rm -f "$cid" >/dev/null
unexpected=$(grep -v '/$' "$tmp/files" | grep -Ev '^(usr/bin/anygpu|(usr/)?lib(64)?/.*\.so(\.[0-9]+)*|usr/share/(misc|hwdata)/pci\.ids|etc/(passwd|group|hosts|hostname|resolv\.conf)|run/.*|\.containerenv)$')
[ -z "$unexpected" ] || bad "unexpected files in the image: $unexpected"
grep -Eq '(^|/)bin/(sh|busybox|bash)$' "$tmp/files" && bad "the image has a shell"
for lib in $(ldd "$bin" | awk '/=>/ {print $3}'); do
  grep -q "${lib#/}$" "$tmp/files" || bad "library $lib the binary loads is not in the image"
done

ANYGPU_IMAGE=$tag
export ANYGPU_IMAGE
out=$("$src/tests/packaging/image_anygpu.sh" --version 2>&1)
[ "$out" = "$("$bin" --version)" ] || bad "image --version: $out"
"$src/tests/packaging/image_anygpu.sh" --root "$fixture" --no-libs detect --json >"$tmp/detect.json" 2>"$tmp/detect.err" \
  || bad "image detect: $(cat "$tmp/detect.err")"
cmp -s "$fixture/expected.json" "$tmp/detect.json" || bad "image detect --json differs from the golden file"
uid=$(podman run --rm --read-only --entrypoint /usr/bin/anygpu "$tag" --version >/dev/null 2>&1 && \
      podman inspect --format '{{.Config.User}}' "$tag")
[ "$uid" = "65534:65534" ] || bad "runs as $uid"

# The Prometheus test, its exporter now the image's.
/usr/bin/python3 "$src/tests/e2e/exporter_prometheus_test.py" "$src/tests/packaging/image_anygpu.sh" \
  "$fixture" "$dashboard" || bad "Prometheus scraping the image's exporter"
[ $fail = 0 ] && echo "PASS: the anygpu image"
exit $fail
