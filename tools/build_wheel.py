#!/usr/bin/python3
"""Builds the anygpu wheel from a build tree, offline, per the wheel format (PEP 427, PEP 491).

The wheel carries the Python package, libanygpu.so beside it (where anygpu._library looks
first) and the CLI as a script (`{dist}.data/scripts/anygpu`, installed onto PATH by pip), so
`pip install anygpu-*.whl` gives both `import anygpu` and the `anygpu` command.

Its platform tag is computed, not assumed: manylinux_2_X where X is the highest GLIBC_2.X
symbol version any shipped ELF file needs (PEP 600). Shared libraries outside the set PEP 600
lets a wheel take from the system (glibc's, libstdc++, libgcc_s) are copied into
anygpu.libs/ under a content-hashed soname and linked there with patchelf, as auditwheel repair
does, so the wheel works where the build host's other libraries are absent.

usage: build_wheel.py --binary BUILD/anygpu --library BUILD/libanygpu.so --source python
                      --out DIST [--version V]
"""

import argparse
import base64
import csv
import hashlib
import io
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from elf_deps import glibc_minor_needed, needed_libraries, resolve, run  # noqa: E402

NAME = "anygpu"
# Libraries a manylinux wheel may expect the system to provide (PEP 600 / auditwheel's policy
# "lib_whitelist", the part that concerns a C/C++ program without X11 or OpenGL).
SYSTEM_LIBS = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0", "libutil.so.1",
    "libresolv.so.2", "libnsl.so.1", "libgcc_s.so.1", "libstdc++.so.6", "libz.so.1",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
}
# A fixed time stamp (1980-01-01, the first the zip format can hold) for reproducible wheels.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def machine():
    m = os.uname().machine
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m)


def version_of(binary):
    out = run([binary, "--version"]).strip()
    m = re.match(r"anygpu (\d+\.\d+\.\d+)", out)
    if not m:
        sys.exit(f"build_wheel: cannot read the version from `{binary} --version`: {out!r}")
    return m.group(1)


def vendor_libraries(library, libs_dir):
    """Copies the non-system libraries `library` needs into libs_dir (hashed sonames) and points
    library at them. Returns the copied paths."""
    copied = []
    for soname in needed_libraries(library):
        if soname in SYSTEM_LIBS:
            continue
        source = resolve(soname)
        with open(source, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:8]
        stem, _, suffix = soname.partition(".so")
        new_name = f"{stem}-{digest}.so{suffix}"
        dest = os.path.join(libs_dir, new_name)
        os.makedirs(libs_dir, exist_ok=True)
        shutil.copyfile(source, dest)
        os.chmod(dest, 0o755)
        run(["patchelf", "--set-soname", new_name, dest])
        run(["patchelf", "--replace-needed", soname, new_name, library])
        copied.append(dest)
        if any(n not in SYSTEM_LIBS for n in needed_libraries(dest)):
            sys.exit(f"build_wheel: {source} needs more non-system libraries: "
                     f"{needed_libraries(dest)}")
    if copied:
        rel = os.path.relpath(libs_dir, os.path.dirname(library))
        run(["patchelf", "--set-rpath", f"$ORIGIN/{rel}", library])
    return copied


def record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [arcname, f"sha256={digest}", str(len(data))]


def write_wheel(path, files):
    """files: [(arcname, bytes, executable)]; RECORD last, listing every file with its hash."""
    records = []
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data, executable in files:
            info = zipfile.ZipInfo(arcname, ZIP_TIME)
            info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
            records.append(record_line(arcname, data))
        dist_info = next(a.split("/")[0] for a, _, _ in files if ".dist-info/" in a)
        record_name = f"{dist_info}/RECORD"
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerows(records)
        writer.writerow([record_name, "", ""])
        info = zipfile.ZipInfo(record_name, ZIP_TIME)
        info.external_attr = (0o644 | stat.S_IFREG) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, buf.getvalue())
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("--source", required=True, help="directory holding the anygpu package")
    ap.add_argument("--out", required=True)
    ap.add_argument("--version")
    a = ap.parse_args()
    version = a.version or version_of(a.binary)
    if not shutil.which("patchelf"):
        sys.exit("build_wheel: patchelf is required (apt-get install patchelf)")

    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, "wheel")  # the wheel's tree, as it will be unpacked
        pkg = os.path.join(work, NAME)
        shutil.copytree(os.path.join(a.source, NAME), pkg,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so"))
        library = os.path.join(pkg, "libanygpu.so")
        shutil.copyfile(os.path.realpath(a.library), library)
        run(["strip", "--strip-unneeded", library])
        vendored = vendor_libraries(library, os.path.join(work, f"{NAME}.libs"))
        binary = os.path.join(tmp, "anygpu")
        shutil.copyfile(a.binary, binary)
        run(["strip", binary])
        leftover = [n for n in needed_libraries(binary) if n not in SYSTEM_LIBS]
        if leftover:
            sys.exit(f"build_wheel: the CLI needs non-system libraries {leftover}")

        elves = [library, binary, *vendored]
        glibc = max(glibc_minor_needed(p) for p in elves)
        tag = f"py3-none-manylinux_2_{glibc}_{machine()}"
        dist = f"{NAME}-{version}"
        files = []
        for root, dirs, names in os.walk(work):
            dirs.sort()
            for n in sorted(names):
                full = os.path.join(root, n)
                rel = os.path.relpath(full, work)
                with open(full, "rb") as f:
                    files.append((rel, f.read(), rel.endswith(".so") or ".so." in rel))
        with open(binary, "rb") as f:
            files.append((f"{dist}.data/scripts/anygpu", f.read(), True))
        meta = f"{dist}.dist-info"
        files.append((f"{meta}/METADATA", (
            "Metadata-Version: 2.1\n"
            f"Name: {NAME}\nVersion: {version}\n"
            "Summary: Run machine-learning experiments on any accelerator vendor\n"
            "Requires-Python: >=3.9\n").encode(), False))
        files.append((f"{meta}/WHEEL", (
            "Wheel-Version: 1.0\nGenerator: anygpu tools/build_wheel.py\n"
            f"Root-Is-Purelib: false\nTag: {tag}\n").encode(), False))
        files.append((f"{meta}/top_level.txt", f"{NAME}\n".encode(), False))
        os.makedirs(a.out, exist_ok=True)
        out = os.path.join(a.out, f"{dist}-{tag}.whl")
        write_wheel(out, files)
        print(out)


if __name__ == "__main__":
    main()
