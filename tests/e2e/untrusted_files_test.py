#!/usr/bin/python3
"""Files that steer anygpu, changed by others, and files that are not files (docs/security.md).

- ANYGPU_REGISTRY: a registry directory mode 0777, a vendors.yaml mode 0666, files owned by
  nobody (when run as root) are refused with exit 2 naming the component — by the CLI and by
  the C ABI; the same registry with sane modes is used.
- CDI: a spec mode 0666 in a 0777 /etc/cdi (a copy of a fixture host) is listed with
  "others can change it" and `run --container` passes explicit device nodes instead of its CDI names;
  with sane modes the same spec is used.
- FIFOs where files belong return promptly with a message naming the path: libcuda.so.1 in an
  LD_LIBRARY_PATH directory (doctor), the accelerator config, the registry override, a CDI
  spec, and a sysfs attribute in a fixture copy (detect).

usage: untrusted_files_test.py ANYGPU LIBANYGPU_SO ACME_REGISTRY ACME_HOST H100_HOST
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

FAILS = []
TIMEOUT = 60  # a FIFO opened for reading would block far longer: the run would time out
NOBODY = 65534


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)
        if detail:
            print("     " + detail.replace("\n", "\n     "))


def run(args, env, cwd):
    try:
        return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, -1, "", f"timed out after {TIMEOUT} s")


def registry_cases(binary, library, registry, host, work, base_env):
    reg = os.path.join(work, "registry")
    shutil.copytree(registry, reg)
    os.chmod(reg, 0o755)
    for name in ("vendors.yaml", "devices.yaml"):
        os.chmod(os.path.join(reg, name), 0o644)
    env = dict(base_env, ANYGPU_REGISTRY=reg)

    def detect():
        return run([binary, "--root", host, "--no-libs", "detect", "--json"], env, work)

    r = detect()
    check(r.returncode == 0 and [d["vendor"] for d in json.loads(r.stdout)["devices"]] ==
          ["acme", "acme"], "registry: a copy with modes 0755/0644 is used", r.stdout + r.stderr)

    os.chmod(reg, 0o777)
    r = detect()
    check(r.returncode == 2 and f"{reg}: writable by others (mode 0777)" in r.stderr and
          "refused" in r.stderr, "registry: a directory mode 0777 is refused, exit 2, named",
          r.stderr)
    capi = run([sys.executable, "-c",
                "import ctypes, json, sys\n"
                "lib = ctypes.CDLL(sys.argv[1])\n"
                "lib.anygpu_detect_json.restype = ctypes.c_void_p\n"
                "p = lib.anygpu_detect_json(json.dumps({'root': sys.argv[2], 'no_libs': True})"
                ".encode())\n"
                "print(ctypes.string_at(p).decode())\n", library, host], env, work)
    doc = json.loads(capi.stdout) if capi.returncode == 0 else {}
    check(doc.get("schema") == "anygpu.error/v1" and doc.get("exit_code") == 2 and
          "writable by others" in doc.get("error", ""),
          "registry: the C ABI refuses it the same way", capi.stdout + capi.stderr)
    os.chmod(reg, 0o755)

    vendors = os.path.join(reg, "vendors.yaml")
    os.chmod(vendors, 0o666)
    r = detect()
    check(r.returncode == 2 and f"{vendors}: writable by others (mode 0666)" in r.stderr,
          "registry: a vendors.yaml mode 0666 is refused", r.stderr)
    os.chmod(vendors, 0o644)

    if os.geteuid() == 0:
        for name in ("vendors.yaml", "devices.yaml"):
            os.chown(os.path.join(reg, name), NOBODY, NOBODY)
        r = detect()
        check(r.returncode == 2 and f"{vendors}: owned by uid {NOBODY}" in r.stderr,
              "registry: files owned by nobody are refused when root runs", r.stderr)
        for name in ("vendors.yaml", "devices.yaml"):
            os.chown(os.path.join(reg, name), 0, 0)
    else:
        print("note: not root: ownership by another user is covered by tests/unit only")

    devices = os.path.join(reg, "devices.yaml")
    os.rename(devices, devices + ".real")
    os.mkfifo(devices, 0o644)
    r = detect()
    check(r.returncode == 2 and f"{devices}: is a FIFO, not a regular file" in r.stderr,
          "registry: a FIFO as devices.yaml returns at once, exit 2, named", r.stderr)
    os.unlink(devices)
    os.rename(devices + ".real", devices)


def copy_host(src, dest):
    shutil.copytree(src, dest, symlinks=True)
    os.chmod(dest, 0o755)


def cdi_cases(binary, h100, work, base_env):
    host = os.path.join(work, "h100")
    copy_host(h100, host)
    cdi_dir = os.path.join(host, "etc", "cdi")
    os.makedirs(cdi_dir, mode=0o755)
    os.chmod(cdi_dir, 0o755)
    spec = os.path.join(cdi_dir, "anygpu-nvidia.yaml")
    common = [binary, "--root", host, "--no-libs"]
    # --output is a path on this machine (the copy's), never the real /etc/cdi.
    r = run(common + ["cdi", "generate", "--vendor", "nvidia", "--output", spec], base_env, work)
    check(r.returncode == 0 and os.path.isfile(spec), "cdi: a spec generated into the copy",
          r.stdout + r.stderr)
    os.chmod(spec, 0o644)
    plan = common + ["run", "--no-check", "--dry-run", "--container", "localhost/exp:1", "--",
                     "true"]
    r = run(plan, base_env, work)
    check(r.returncode == 0 and "nvidia.com/gpu=" in r.stdout,
          "cdi: with modes 0755/0644, run --container uses its CDI names", r.stdout + r.stderr)

    os.chmod(cdi_dir, 0o777)
    os.chmod(spec, 0o666)
    shown_dir = cdi_dir
    r = run(common + ["cdi", "list"], base_env, work)
    # Warnings go to stderr (one channel), never into the listing on stdout.
    check(r.returncode == 0 and "others can change it" in r.stderr and
          f"{shown_dir}: writable by others (mode 0777)" in r.stderr and
          "others can change it" not in r.stdout,
          "cdi list: a spec in a 0777 /etc/cdi is shown with a warning naming the directory",
          r.stdout + r.stderr)
    r = run(plan, base_env, work)
    check(r.returncode == 0 and "nvidia.com/gpu=" not in r.stdout and
          "/dev/nvidia0:/dev/nvidia0" in r.stdout and "others can change it" in r.stderr,
          "cdi: run --container passes explicit nodes instead, and says why",
          r.stdout + r.stderr)
    os.chmod(cdi_dir, 0o755)
    r = run(plan, base_env, work)
    check(r.returncode == 0 and "nvidia.com/gpu=" not in r.stdout and
          f"{spec}: writable by others (mode 0666)" in r.stderr,
          "cdi: a spec mode 0666 alone is not used either", r.stdout + r.stderr)
    os.unlink(spec)

    os.mkfifo(spec, 0o644)
    r = run(common + ["cdi", "list"], base_env, work)
    check(r.returncode != -1 and f"{spec}: is a FIFO, not a regular file" in r.stderr,
          "cdi list: a FIFO as a spec returns at once, named", r.stdout + r.stderr)
    os.unlink(spec)


def fifo_cases(binary, h100, work, base_env):
    host = os.path.join(work, "h100-fifo")
    copy_host(h100, host)
    common = [binary, "--root", host, "--no-libs"]

    lib_dir = os.path.join(host, "opt", "fifolib")
    os.makedirs(lib_dir)
    os.mkfifo(os.path.join(lib_dir, "libcuda.so.1"), 0o755)
    env = dict(base_env, LD_LIBRARY_PATH="/opt/fifolib")
    r = run(common + ["doctor"], env, work)
    check(r.returncode != -1 and "/opt/fifolib/libcuda.so.1: is a FIFO, not a regular file" in
          r.stdout, "doctor: a FIFO named libcuda.so.1 on LD_LIBRARY_PATH returns, named",
          r.stdout[-2000:] + r.stderr)

    config = os.path.join(work, "fifo-config.yaml")
    os.mkfifo(config, 0o644)
    r = run(common + ["select", "--config", config], base_env, work)
    check(r.returncode == 2 and f"{config}: is a FIFO, not a regular file" in r.stderr,
          "select: a FIFO as the accelerator config returns at once, exit 2, named", r.stderr)

    # A sysfs attribute of the first GPU replaced by a FIFO in the copy: detect returns and says
    # which file it could not read.
    devices = os.path.join(host, "sys", "bus", "pci", "devices")
    first = sorted(os.listdir(devices))[0]
    real_dir = os.path.realpath(os.path.join(devices, first))
    attr = os.path.join(real_dir, "class")
    os.unlink(attr)
    os.mkfifo(attr, 0o644)
    r = run(common + ["detect", "--json"], base_env, work)
    check(r.returncode != -1, "detect: a FIFO as a sysfs attribute does not block", r.stderr)
    check("is a FIFO, not a regular file" in r.stderr and "/class" in r.stderr,
          "detect: the FIFO is named in a warning", r.stderr)


def main():
    binary, library, registry, acme_host, h100 = map(os.path.abspath, sys.argv[1:6])
    work = tempfile.mkdtemp(prefix="anygpu-untrusted-")
    os.chmod(work, 0o755)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("ANYGPU_")}
    base_env.pop("LD_LIBRARY_PATH", None)
    try:
        registry_cases(binary, library, registry, acme_host, work, base_env)
        cdi_cases(binary, h100, work, base_env)
        fifo_cases(binary, h100, work, base_env)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILS:
        print(f"{len(FAILS)} failed")
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
