"""ELF dependency facts for the packaging tools (wheel, image), read with binutils' readelf and
resolved through ld.so.cache the way the dynamic loader resolves them."""

import os
import re
import subprocess
import sys

GLIBC_VERSION = re.compile(r"\bGLIBC_2\.(\d+)(?:\.\d+)?\b")


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def needed_libraries(path):
    """DT_NEEDED entries, in order."""
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", run(["readelf", "-d", path]))


def interpreter(path):
    """PT_INTERP (the dynamic loader's path), or None for a static or shared-library file."""
    m = re.search(r"\[Requesting program interpreter: ([^\]]+)\]", run(["readelf", "-lW", path]))
    return m.group(1) if m else None


def glibc_minor_needed(path):
    """Highest X among the GLIBC_2.X versions in the file's version needs (verneed)."""
    refs = run(["readelf", "--version-info", "--wide", path])
    section = refs.split("Version needs section", 1)
    if len(section) < 2:
        return 0
    return max((int(m) for m in GLIBC_VERSION.findall(section[1])), default=0)


NATIVE_ABI = {"x86_64": "libc6,x86-64", "aarch64": "libc6,AArch64"}.get(os.uname().machine, "libc6")
_cache = None


def resolve(soname):
    """The path ld.so loads for soname, from ld.so.cache entries of this machine's ABI."""
    global _cache
    if _cache is None:
        _cache = {}
        for line in run(["/sbin/ldconfig", "-p"]).splitlines()[1:]:
            m = re.match(r"\s*(\S+) \(([^)]*)\) => (\S+)", line)
            if m and m.group(2).split(",")[0:2] == NATIVE_ABI.split(",")[0:2]:
                _cache.setdefault(m.group(1), m.group(3))
    path = _cache.get(soname)
    if not path:
        sys.exit(f"{soname} is needed but not in ld.so.cache")
    return path


def closure(path):
    """({soname: path} of every shared library `path` loads, transitively; the loader's path)."""
    found = {}
    todo = [path]
    while todo:
        for soname in needed_libraries(todo.pop()):
            if soname not in found:
                found[soname] = resolve(soname)
                todo.append(found[soname])
    return found, interpreter(path)
