#!/usr/bin/python3
"""The wheel `make wheel` builds, checked against the wheel format and installed with pip.

- The file name's platform tag is manylinux_2_X_ARCH with X the highest GLIBC_2.X version any
  ELF file inside needs, computed here independently (objdump's dynamic symbol table, not the
  builder's readelf reading), and no ELF file needs a library outside PEP 600's system set
  unless the wheel carries it.
- RECORD lists every file with its sha256 and size (PEP 376/427) and nothing else.
- `pip install` into a fresh `python3 -m venv --system-site-packages`: the `anygpu` command
  on the venv's PATH and `import anygpu` both work from the venv alone (the library and its
  carried dependencies loaded from the venv), the command's --root detect --json equals the
  fixture's golden file, `anygpu.detect()` finds the fixture's devices; pip uninstall leaves
  nothing of it.
- `pip install --no-build-isolation` from a copy of the source tree (pyproject.toml) gives the
  same package, at the version CMake builds.

usage: wheel_test.py SOURCE_DIR ANYGPU LIBANYGPU FIXTURE
"""

import base64
import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

SYSTEM_LIBS = {"libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0",
               "libgcc_s.so.1", "libz.so.1", "libstdc++.so.6", "ld-linux-x86-64.so.2",
               "ld-linux-aarch64.so.1"}
failures = []


def check(cond, message):
    if not cond:
        failures.append(message)
        print(f"FAIL: {message}")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "ANYGPU_LIBRARY", "LD_LIBRARY_PATH", "PYTHONHOME")}
    env.update(extra)
    return env


def glibc_needed(path):
    out = run(["objdump", "-T", path]).stdout
    return max((int(m) for m in re.findall(r"\bGLIBC_2\.(\d+)", out)), default=0)


def needed(path):
    out = run(["objdump", "-p", path]).stdout
    return re.findall(r"^\s+NEEDED\s+(\S+)", out, re.M)


def check_wheel(path, work):
    name = os.path.basename(path)
    m = re.fullmatch(r"anygpu-(\d+\.\d+\.\d+)-py3-none-manylinux_2_(\d+)_(\w+)\.whl", name)
    check(m is not None, f"wheel name {name}")
    if not m:
        return None
    version, tag_glibc, arch = m.group(1), int(m.group(2)), m.group(3)
    check(arch == os.uname().machine, f"arch tag {arch}")
    unpacked = os.path.join(work, "unpacked")
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        z.extractall(unpacked)
        record_name = f"anygpu-{version}.dist-info/RECORD"
        check(record_name in names, "no RECORD")
        rows = list(csv.reader(io.StringIO(z.read(record_name).decode())))
        listed = {r[0]: r for r in rows}
        check(set(listed) == set(names), f"RECORD lists {sorted(set(listed) ^ set(names))} wrongly")
        for arc in names:
            if arc == record_name:
                check(listed[arc][1:] == ["", ""], "RECORD's own line carries a hash")
                continue
            data = z.read(arc)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            check(listed.get(arc, [None, None, None])[1:] == [f"sha256={digest}", str(len(data))],
                  f"RECORD hash/size of {arc}")
        wheel_meta = z.read(f"anygpu-{version}.dist-info/WHEEL").decode()
        check(f"Tag: py3-none-manylinux_2_{tag_glibc}_{arch}" in wheel_meta, "WHEEL Tag line")
        check("Root-Is-Purelib: false" in wheel_meta, "Root-Is-Purelib")
        check(f"anygpu-{version}.data/scripts/anygpu" in names, "no anygpu script")
        check("anygpu/libanygpu.so" in names, "no libanygpu.so")
    elves = []
    for root, _, files in os.walk(unpacked):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    elves.append(p)
    carried = {os.path.basename(p) for p in elves}
    highest = max(glibc_needed(p) for p in elves)
    check(highest == tag_glibc, f"tag says glibc 2.{tag_glibc}, the files need 2.{highest}")
    for p in elves:
        for lib in needed(p):
            check(lib in SYSTEM_LIBS or lib in carried,
                  f"{os.path.relpath(p, unpacked)} needs {lib}, neither system nor carried")
    print(f"wheel {name}: {len(names)} files, glibc 2.{highest}, carries {sorted(carried)}")
    return version


def venv(path):
    # --without-pip: Debian's pip, visible through the system site-packages, installs into the
    # venv all the same and saves copying a pip into every venv.
    r = run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", "--without-pip", path])
    check(r.returncode == 0, f"python3 -m venv: {r.stderr}")
    return os.path.join(path, "bin")


PROBE = """
import json, sys, anygpu
inv = anygpu.detect(root=sys.argv[1], no_libs=True)
maps = open("/proc/self/maps").read()
libs = sorted({l.split()[-1] for l in maps.splitlines() if "libanygpu" in l or "yaml-cpp" in l})
print(json.dumps({"file": anygpu.__file__, "devices": len(inv["devices"]), "libs": libs}))
"""


def main():
    source, binary, library, fixture = (os.path.abspath(a) for a in sys.argv[1:5])
    with open(os.path.join(fixture, "expected.json")) as f:
        golden = f.read()
    expected_devices = len(json.loads(golden)["devices"])
    work = tempfile.mkdtemp(prefix="anygpu-wheel-")
    try:
        dist = os.path.join(work, "dist")
        r = run(["/usr/bin/python3", os.path.join(source, "tools/build_wheel.py"),
                 "--binary", binary, "--library", library, "--source",
                 os.path.join(source, "python"), "--out", dist])
        check(r.returncode == 0, f"build_wheel: {r.stderr}")
        if r.returncode != 0:
            return
        wheel = r.stdout.strip().splitlines()[-1]
        version = check_wheel(wheel, work)
        built = run([binary, "--version"]).stdout.split()[1]
        check(version == built, f"wheel version {version}, CLI {built}")

        bindir = venv(os.path.join(work, "venv"))
        r = run([os.path.join(bindir, "python"), "-m", "pip", "install", "--no-index", "--no-deps", "-q", wheel],
                env=clean_env())
        check(r.returncode == 0, f"pip install wheel: {r.stdout}{r.stderr}")
        env = clean_env(PATH=bindir + os.pathsep + "/usr/bin:/bin")
        cli = shutil.which("anygpu", path=env["PATH"])
        check(cli == os.path.join(bindir, "anygpu"), f"anygpu on PATH: {cli}")
        r = run(["anygpu", "--version"], env=env, cwd=work)
        check(r.returncode == 0 and r.stdout.split()[1] == built, f"venv anygpu --version: {r}")
        r = run(["anygpu", "--root", fixture, "--no-libs", "detect", "--json"], env=env, cwd=work)
        check(r.returncode == 0 and r.stdout == golden, "venv anygpu detect differs from golden")
        r = run([os.path.join(bindir, "python"), "-c", PROBE, fixture], env=env, cwd=work)
        check(r.returncode == 0, f"import anygpu from the venv: {r.stderr}")
        if r.returncode == 0:
            got = json.loads(r.stdout)
            venv_dir = os.path.join(work, "venv")
            check(got["file"].startswith(venv_dir), f"anygpu imported from {got['file']}")
            check(got["devices"] == expected_devices, f"detect(): {got['devices']} devices")
            check(got["libs"] and all(p.startswith(venv_dir) for p in got["libs"]),
                  f"libraries loaded from outside the venv: {got['libs']}")
            print(f"venv: import anygpu, {got['devices']} devices, libraries {got['libs']}")
        r = run([os.path.join(bindir, "python"), "-m", "pip", "uninstall", "-y", "-q", "anygpu"], env=env)
        check(r.returncode == 0, f"pip uninstall: {r.stderr}")
        venv_dir = os.path.join(work, "venv")
        left = [os.path.relpath(os.path.join(d, f), venv_dir) for d, _, fs in os.walk(venv_dir)
                for f in fs if "anygpu" in os.path.relpath(os.path.join(d, f), venv_dir)]
        check(not left and not os.path.exists(os.path.join(bindir, "anygpu")),
              f"pip uninstall left {left[:5]}")

        # From the source tree: pyproject.toml, offline, with Debian's setuptools.
        tree = os.path.join(work, "src")
        os.makedirs(tree)
        for f in ("pyproject.toml", "README.md"):
            shutil.copy(os.path.join(source, f), tree)
        shutil.copytree(os.path.join(source, "python"), os.path.join(tree, "python"),
                        ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        bindir2 = venv(os.path.join(work, "venv2"))
        r = run([os.path.join(bindir2, "python"), "-m", "pip", "install", "--no-index", "--no-build-isolation",
                 "-q", tree], env=clean_env(), cwd=work)
        check(r.returncode == 0, f"pip install source tree: {r.stdout}{r.stderr}")
        r = run([os.path.join(bindir2, "python"), "-c",
                 "import importlib.metadata as m; print(m.version('anygpu'))" + ";" +
                 PROBE, fixture],
                env=clean_env(ANYGPU_LIBRARY=os.path.realpath(library)), cwd=work)
        check(r.returncode == 0, f"import the source-tree install: {r.stderr}")
        if r.returncode == 0:
            lines = r.stdout.splitlines()
            check(lines[0] == built, f"pyproject.toml version {lines[0]}, CMake's {built}")
            got = json.loads(lines[1])
            check(got["file"].startswith(os.path.join(work, "venv2")), f"imported {got['file']}")
            check(got["devices"] == expected_devices, "source install: detect()")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        sys.exit(1)
    print("PASS: wheel and source-tree installs")


if __name__ == "__main__":
    main()
