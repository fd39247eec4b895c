#!/usr/bin/python3
"""Builds the anygpu OCI image offline: a root file system holding only the CLI, the shared
libraries its ELF dependencies resolve to (through ld.so.cache, as the loader would), pci.ids
for device names and an unprivileged user, imported with `podman import`. No base image, no
registry, no shell: the image runs `anygpu` as 65534:65534 and writes nothing, so it runs with
a read-only root file system.

usage: build_image.py BUILD/anygpu DIST [--tag localhost/anygpu:VERSION] [--no-archive]
  Prints the image name. DIST/anygpu-image-VERSION.oci.tar is the image as an OCI archive
  (podman load, skopeo copy oci-archive:…) unless --no-archive.
"""

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from elf_deps import closure, run  # noqa: E402

USER = "65534:65534"
# pci.ids turns PCI ids into names; anygpu looks in both places Debian uses.
PCI_IDS = ["/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids"]


def add_file(tar, source, arcname, mode=None):
    info = tar.gettarinfo(os.path.realpath(source), arcname)
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    info.mtime = 0
    if mode is not None:
        info.mode = mode
    with open(source, "rb") as f:
        tar.addfile(info, f)


def add_bytes(tar, arcname, data, mode=0o644):
    info = tarfile.TarInfo(arcname)
    info.size = len(data)
    info.mode = mode
    tar.addfile(info, io.BytesIO(data))


def add_dir(tar, arcname, mode=0o755):
    info = tarfile.TarInfo(arcname)
    info.type = tarfile.DIRTYPE
    info.mode = mode
    tar.addfile(info)


def add_link(tar, arcname, target):
    info = tarfile.TarInfo(arcname)
    info.type = tarfile.SYMTYPE
    info.linkname = target
    tar.addfile(info)


def rootfs(binary, out):
    """Writes the root file system tarball; returns the files it holds."""
    libs, interp = closure(binary)
    stripped = out + ".anygpu"
    shutil.copyfile(binary, stripped)
    run(["strip", stripped])
    made = set()
    listing = []
    with tarfile.open(out, "w") as tar:
        def parents(path):
            parts = path.strip("/").split("/")[:-1]
            for i in range(1, len(parts) + 1):
                d = "/".join(parts[:i])
                if d not in made:
                    made.add(d)
                    add_dir(tar, d)

        for d in ("proc", "sys", "dev", "etc", "usr/bin"):
            parents(d + "/x")
        add_dir(tar, "tmp", 0o1777)
        made.add("tmp")
        parents("usr/bin/anygpu")
        add_file(tar, stripped, "usr/bin/anygpu", 0o755)
        listing.append("/usr/bin/anygpu")
        for path in sorted(set(libs.values())):
            parents(path)
            add_file(tar, path, path.lstrip("/"), 0o755)
            listing.append(path)
        if interp and interp not in libs.values():
            # /lib64/ld-linux-x86-64.so.2 → the loader copied beneath /lib/<triplet>/.
            loader = next((p for p in libs.values() if os.path.basename(p) ==
                           os.path.basename(interp)), None)
            parents(interp)
            if loader:
                add_link(tar, interp.lstrip("/"), os.path.relpath(loader, os.path.dirname(interp)))
            else:
                add_file(tar, interp, interp.lstrip("/"), 0o755)
            listing.append(interp)
        for ids in PCI_IDS:
            if os.path.exists(ids):
                parents(ids)
                add_file(tar, ids, ids.lstrip("/"), 0o644)
                listing.append(ids)
                break
        add_bytes(tar, "etc/passwd", b"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
        add_bytes(tar, "etc/group", b"nogroup:x:65534:\nvideo:x:44:\nrender:x:105:\n")
    os.remove(stripped)
    return listing


def version_of(binary):
    out = run([binary, "--version"]).strip()
    m = re.match(r"anygpu (\d+\.\d+\.\d+)(?: \((\S+)\))?", out)
    if not m:
        sys.exit(f"build_image: cannot read the version from `{binary} --version`: {out!r}")
    return m.group(1), m.group(2) or ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("dist")
    ap.add_argument("--tag")
    ap.add_argument("--no-archive", action="store_true")
    a = ap.parse_args()
    version, described = version_of(a.binary)
    tag = a.tag or f"localhost/anygpu:{version}"
    os.makedirs(a.dist, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=a.dist) as work:
        tarball = os.path.join(work, "rootfs.tar")
        files = rootfs(a.binary, tarball)
        changes = [
            f"USER {USER}",
            'ENTRYPOINT ["/usr/bin/anygpu"]',
            # Loopback unless told otherwise; a DaemonSet passes --listen 0.0.0.0:9400.
            'CMD ["exporter"]',
            "EXPOSE 9400/tcp",
            "WORKDIR /",
            f"LABEL org.opencontainers.image.title=anygpu",
            f"LABEL org.opencontainers.image.version={version}",
            f"LABEL org.opencontainers.image.revision={described or 'unknown'}",
        ]
        cmd = ["podman", "import", "-q"]
        for c in changes:
            cmd += ["--change", c]
        subprocess.run(cmd + [tarball, tag], check=True, stdout=subprocess.DEVNULL)
        if not a.no_archive:
            archive = os.path.join(a.dist, f"anygpu-image-{version}.oci.tar")
            if os.path.exists(archive):
                os.remove(archive)
            subprocess.run(["podman", "save", "-q", "--format", "oci-archive", "-o", archive, tag],
                           check=True)
    for f in files:
        print(f"  {f}", file=sys.stderr)
    print(tag)


if __name__ == "__main__":
    main()
