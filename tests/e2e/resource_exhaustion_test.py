#!/usr/bin/python3
"""Out of file descriptors, every command says so (docs/security.md).

Each command runs on a fixture host under RLIMIT_NOFILE = N for every N from 4 up to where it
no longer matters (setrlimit in the child, as `prlimit --nofile=N` does). A run passes when it
exits non-zero, or says so ("out of file descriptors", or the system's "Too many open files"
in a finding), or prints exactly what it prints without a
limit: an exit 0 with less than the full answer and no word — the empty `ps`, `metrics`, `top`,
`host-init` and `wheel` this used to give — fails. Every N where the limit did matter must be
one of the first two.

A read-only target: `host-init --apply` into a tmpfs remounted read-only (as root; without root
the test says so and checks the message at the function level only, in tests/unit).

usage: resource_exhaustion_test.py ANYGPU H100_HOST
"""

import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

FAILS = []
TIMEOUT = 120

# argv after the global options; each on the fixture with libraries off.
COMMANDS = [
    ["detect", "--json"],
    ["ps", "--json"],
    ["metrics", "--json"],
    ["top", "-n", "1"],
    ["host-init", "--json"],
    ["wheel", "--json"],
    ["doctor", "--json"],
    ["health", "--json"],
    ["cdi", "list"],
    ["select"],
]

# Wall-clock times and durations differ between two runs of the same command.
# Said in so many words: anygpu's own message, or the system's (strerror) inside a finding.
SAID = re.compile(r"out of file descriptors|Too many open files")

VOLATILE = re.compile(r"\d{4}-\d\d-\d\dT[0-9:.]+Z?|\"(elapsed|duration)[a-z_]*\": [0-9.]+|"
                      r"\b\d+(\.\d+)? ?ms\b")


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)
        if detail:
            print("     " + detail.replace("\n", "\n     "))


def run(argv, nofile=None, env=None, cwd=None):
    def limit():
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    try:
        return subprocess.run(argv, preexec_fn=limit, capture_output=True, text=True,
                              timeout=TIMEOUT, env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, -1, "", "timed out")


# doctor reports the limit itself (limits.nofile-low): the number it names follows the limit.
LIMIT_NAMED = re.compile(r"(ulimit -n\) is|RLIMIT_NOFILE is) \d+")


def said(r):
    return bool(SAID.search(r.stderr) or SAID.search(r.stdout))


def normal(text):
    return LIMIT_NAMED.sub(r"\1 N", VOLATILE.sub("#", text))


def limits_for(binary, host, args, env, cwd):
    full = run([binary, "--root", host, "--no-libs", *args], env=env, cwd=cwd)
    if full.returncode != 0:
        return full, []
    results = []
    for n in range(4, 64):
        r = run([binary, "--root", host, "--no-libs", *args], nofile=n, env=env, cwd=cwd)
        results.append((n, r))
        if r.returncode == 0 and normal(r.stdout) == normal(full.stdout) and not said(r):
            break  # from here on the limit no longer matters
    return full, results


def exhaustion_cases(binary, host, env, cwd):
    for args in COMMANDS:
        name = " ".join(args)
        full, results = limits_for(binary, host, args, env, cwd)
        if full.returncode != 0:
            check(False, f"{name}: runs without a limit", full.stderr)
            continue
        silent = [n for n, r in results
                  if r.returncode == 0 and not said(r) and normal(r.stdout) != normal(full.stdout)]
        told = [n for n, r in results if r.returncode != 0 or said(r)]
        hung = [n for n, r in results if r.returncode == -1]
        detail = "\n".join(f"nofile={n}: exit {r.returncode}; {r.stderr.strip()[-300:]}"
                           for n, r in results if n in silent + hung)
        check(not silent and not hung and told,
              f"{name}: under nofile 4..{results[-1][0] if results else '?'} every run fails or "
              f"says so ({len(told)} did), none is a silent partial answer", detail)


def read_only_case(binary, host, env, cwd):
    if os.geteuid() != 0:
        print("note: not root: no read-only mount here; the EROFS message is checked by "
              "tests/unit (ResourceErrors)")
        return
    target = tempfile.mkdtemp(prefix="anygpu-ro-")
    try:
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", target]).returncode:
            print("note: cannot mount a tmpfs here (no CAP_SYS_ADMIN in this container); the "
                  "EROFS message is checked by tests/unit (ResourceErrors)")
            return
        try:
            root = os.path.join(target, "host")
            shutil.copytree(host, root, symlinks=True)
            subprocess.run(["mount", "-o", "remount,ro", target], check=True)
            r = run([binary, "--root", root, "--no-libs", "host-init", "--apply"], env=env,
                    cwd=cwd)
            check(r.returncode != 0 and "mounted read-only" in r.stderr and
                  "run as root" not in r.stderr,
                  "host-init --apply on a read-only target says it is read-only, not 'run as "
                  "root'", r.stderr)
        finally:
            subprocess.run(["umount", target])
    finally:
        os.rmdir(target)


def main():
    binary, host = map(os.path.abspath, sys.argv[1:3])
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANYGPU_")}
    cwd = tempfile.mkdtemp(prefix="anygpu-nofile-")
    try:
        exhaustion_cases(binary, host, env, cwd)
        read_only_case(binary, host, env, cwd)
    finally:
        shutil.rmtree(cwd, ignore_errors=True)
    if FAILS:
        print(f"{len(FAILS)} failed")
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
