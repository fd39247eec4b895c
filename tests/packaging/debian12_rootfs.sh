#!/usr/bin/env bash
# Prints the path of a cached, pristine Debian 12 (bookworm) minbase root file system tarball,
# creating it with debootstrap from the Debian archive on first use. The cache lives outside the
# tree (ANYGPU_CACHE, default ~/.cache/anygpu) so every run after the first skips the download.
set -eu
cache=${ANYGPU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/anygpu}
mirror=${ANYGPU_DEBIAN_MIRROR:-http://deb.debian.org/debian}
tarball=$cache/debian12-minbase.tar
if [ -s "$tarball" ]; then echo "$tarball"; exit 0; fi
command -v debootstrap >/dev/null || { echo "debootstrap is required (make test installs it)" >&2; exit 1; }
mkdir -p "$cache"
work=$(mktemp -d "$cache/debootstrap.XXXXXX")
trap 'rm -rf "$work"' EXIT
debootstrap --variant=minbase bookworm "$work/root" "$mirror" >"$work/log" 2>&1 || {
  tail -20 "$work/log" >&2; exit 1; }
# Package lists stay in the cache: installing a .deb resolves its dependencies offline-first.
chroot "$work/root" apt-get update -qq >>"$work/log" 2>&1 || { tail -20 "$work/log" >&2; exit 1; }
rm -f "$work/root/var/cache/apt/archives/"*.deb
tar -C "$work/root" --numeric-owner -cf "$work/rootfs.tar" .
mv "$work/rootfs.tar" "$tarball"  # atomic: a half-written cache is never seen
echo "$tarball"
