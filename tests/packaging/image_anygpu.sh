#!/usr/bin/env bash
# Runs the anygpu image as if it were the anygpu binary: `image_anygpu.sh ARGS…` is
# `podman run IMAGE ARGS…` (IMAGE from ANYGPU_IMAGE), so tests written for the binary drive the
# image unchanged. The container gets what a deployment gives it: a read-only root, no
# capabilities, no new privileges, the image's own non-root user, the host's network (the
# exporter listens on the host's loopback), and the --root directory mounted read-only.
set -u
: "${ANYGPU_IMAGE:?ANYGPU_IMAGE names the image}"
mounts=()
args=()
prev=""
for a in "$@"; do
  if [ "$prev" = --root ]; then
    root=$(realpath "$a")
    # The image's user (65534) must reach the fixture copy inside the test's private temp dirs.
    d=$root
    tmpbase=$(realpath "${TMPDIR:-/tmp}")
    while [ "$d" != / ] && [ "${d#"$tmpbase"/}" != "$d" ]; do chmod o+x "$d"; d=$(dirname "$d"); done
    [ "${root#"$tmpbase"/}" != "$root" ] && chmod -R o+rX "$root"
    mounts+=(-v "$root:$root:ro")
    a=$root
  fi
  args+=("$a")
  prev=$a
done
exec podman run --rm --read-only --cap-drop ALL --security-opt no-new-privileges \
  --network host "${mounts[@]}" "$ANYGPU_IMAGE" "${args[@]}"
