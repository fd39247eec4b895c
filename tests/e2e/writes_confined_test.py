#!/usr/bin/python3
"""Every writer of the real binary keeps its writes where they belong.

Writers: host-init --apply --root, cdi generate --output, init DIR, gather DIR, slurm gres
--output, k8s labels --output. For each: links planted beneath the target (etc/anygpu ->
/elsewhere, opt -> ../../x, etc/cdi -> ..., .github -> ..., a link at the name earlier versions
used for their temporary) write nothing outside it, and a refused path is exit 2 naming it;
kill -9 at random moments leaves no half-written target, and the next run leaves no stale
temporary behind.
"""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

FAILED = []
TEMP_TAGS = (".anygpu-tmp-", ".anygpu-partial-")
KILLS = 6


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILED.append(what)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=60, **kw)


GATHER_MANIFEST = "anygpu-gather.json"


def gather_manifest(path):
    """A gather's manifest less what differs between two runs: the time and the command line
    (which names the destination)."""
    with open(path, encoding="utf-8") as f:
        m = json.load(f)
    m.pop("gathered_at")
    m.pop("command")
    return m


def listing(top):
    """Every path beneath `top` (links not followed), with file contents."""
    out = {}
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            p = os.path.join(d, n)
            rel = os.path.relpath(p, top)
            if os.path.islink(p):
                out[rel] = "-> " + os.readlink(p)
            elif rel == GATHER_MANIFEST:
                out[rel] = gather_manifest(p)
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    out[rel] = f.read()
            else:
                out[rel] = "dir"
    return out


def temporaries(top):
    found = []
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            if any(t in n for t in TEMP_TAGS) or ".tmp" in n or ".partial" in n:
                found.append(os.path.join(d, n))
    return found


def plant_predictable_temps(directory, name, victim):
    """Links at `.NAME.tmpPID` for the PIDs the next processes will get, as an attacker who
    knew earlier versions' naming would plant them."""
    try:
        with open("/proc/sys/kernel/ns_last_pid") as f:
            last = int(f.read())
    except OSError:
        last = os.getpid()
    for pid in range(last + 1, last + 64):
        os.symlink(victim, os.path.join(directory, f".{name}.tmp{pid}"))


class Scratch:
    def __init__(self, base):
        self.base = base
        self.outside = os.path.join(base, "elsewhere")
        os.makedirs(self.outside)
        self.victim = os.path.join(self.outside, "victim")
        with open(self.victim, "w") as f:
            f.write("precious\n")
        self.before = listing(self.outside)

    def outside_untouched(self, what):
        check(listing(self.outside) == self.before, f"{what}: nothing written outside")


def refused(r, path, what):
    check(r.returncode == 2, f"{what}: exit {r.returncode}, expected 2 ({r.stderr.strip()})")
    check(path in r.stderr, f"{what}: the message names {path}: {r.stderr.strip()!r}")


def host_init_links(binary, s, hosts):
    root = os.path.join(s.base, "root")
    shutil.copytree(os.path.join(hosts, "mi300x-8x"), root, symlinks=True)
    cmd = [binary, "--root", root, "--no-libs", "host-init", "--apply", "--json"]
    os.makedirs(os.path.join(root, "etc"), exist_ok=True)
    cases = [
        ("etc/anygpu", s.outside),            # absolute: out of the root
        ("opt", "../../x"),                   # relative, climbing out of it
        ("etc/cdi", s.outside),
        ("etc/security", "../../elsewhere"),
    ]
    for link, target in cases:
        real = os.path.join(root, link)
        moved = None
        if os.path.lexists(real):
            moved = real + ".orig"
            os.rename(real, moved)
        os.makedirs(os.path.dirname(real), exist_ok=True)
        os.symlink(target, real)
        r = run(cmd)
        refused(r, os.path.join(root, link), f"host-init with {link} -> {target}")
        s.outside_untouched(f"host-init with {link} -> {target}")
        check(not os.path.exists(os.path.join(s.base, "x")), f"host-init {link}: ../../x absent")
        os.unlink(real)
        if moved:
            os.rename(moved, real)
    # Without links: applied once, then nothing to apply (read back through the same path).
    first = run(cmd)
    check(first.returncode == 0, f"host-init --apply: exit {first.returncode} {first.stderr}")
    second = run(cmd)
    states = {x["id"]: x["state"] for x in json.loads(second.stdout)["steps"]}
    check(not {k for k, v in states.items() if v in ("to-do", "applied")},
          f"host-init second run has nothing to apply: {states}")
    check(not temporaries(os.path.join(root, "etc")), "host-init leaves no temporary")


def cdi_links(binary, s, hosts):
    d = os.path.join(s.base, "cdi")
    os.makedirs(d)
    out = os.path.join(d, "anygpu-amd.yaml")
    os.symlink(s.victim, out)  # the target itself is a link: replaced, not followed
    plant_predictable_temps(d, "anygpu-amd.yaml", s.victim)
    r = run([binary, "--root", os.path.join(hosts, "mi300x-8x"), "--no-libs", "-q", "cdi",
             "generate", "--output", out])
    check(r.returncode == 0, f"cdi generate over planted links: exit {r.returncode} {r.stderr}")
    check(not os.path.islink(out) and "cdiVersion" in open(out).read(),
          "cdi generate replaced the link at its target with the spec")
    s.outside_untouched("cdi generate")


def init_links(binary, s):
    d = os.path.join(s.base, "exp")
    os.makedirs(d)
    os.symlink(s.outside, os.path.join(d, ".github"))
    r = run([binary, "init", d])
    refused(r, os.path.join(d, ".github"), "init with .github -> elsewhere")
    check(sorted(os.listdir(d)) == [".github"], "init wrote nothing when one path was refused")
    r = run([binary, "init", "--force", d])
    refused(r, os.path.join(d, ".github"), "init --force with .github -> elsewhere")
    s.outside_untouched("init")


def gather_links(binary, s, hosts):
    src = os.path.join(hosts, "mi300x-8x")
    empty = os.path.join(s.base, "empty")
    os.makedirs(empty)
    r = run([binary, "--root", src, "--no-libs", "-q", "gather", empty])
    check(r.returncode == 0 and os.path.isdir(os.path.join(empty, "sys")),
          f"gather into a pre-existing empty directory: exit {r.returncode} {r.stderr}")
    linked = os.path.join(s.base, "linked")
    os.symlink(s.outside, linked)
    r = run([binary, "--root", src, "--no-libs", "-q", "gather", linked])
    refused(r, linked, "gather onto a link")
    s.outside_untouched("gather")


def slurm_k8s_links(binary, s, hosts):
    src = os.path.join(hosts, "mi300x-8x")
    for what, args, name in (
            ("slurm gres", ["slurm", "gres", "--output"], "gres.conf"),
            ("k8s labels", ["k8s", "labels", "--output"], "anygpu")):
        d = os.path.join(s.base, what.replace(" ", "-"))
        os.makedirs(d)
        target = os.path.join(d, name)
        os.symlink(s.victim, target)
        plant_predictable_temps(d, name, s.victim)
        arg = d if what == "k8s labels" else target
        r = run([binary, "--root", src, "--no-libs", "-q"] + args + [arg])
        check(r.returncode == 0, f"{what} over planted links: exit {r.returncode} {r.stderr}")
        check(not os.path.islink(target), f"{what} replaced the link at its target")
        s.outside_untouched(what)


def killed(cmd, delay, env):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    time.sleep(delay)
    p.send_signal(signal.SIGKILL)
    p.wait()


def kill_writers(binary, s, hosts, preload):
    # Pauses before fsync and renameat: the kills land inside writes, not only around them.
    slow = dict(os.environ, LD_PRELOAD=preload, ANYGPU_TEST_SLOW_WRITES_US="20000")
    rng = random.Random(int(os.environ.get("ANYGPU_TEST_SEED", time.time_ns())))
    src = os.path.join(hosts, "mi300x-8x")
    base = os.path.join(s.base, "kill")
    os.makedirs(base)
    root = os.path.join(base, "root")
    shutil.copytree(os.path.join(hosts, "cloud-vm-none"), root, symlinks=True)
    ref_root = os.path.join(base, "ref-root")
    shutil.copytree(os.path.join(hosts, "cloud-vm-none"), ref_root, symlinks=True)
    outputs = ["etc/anygpu/host.json", "opt/gpu-config/vendor",
               "etc/security/limits.d/90-anygpu.conf"]
    # Each writer: the command, the file or tree it makes, and where temporaries would lie.
    writers = [
        ("host-init", [binary, "--root", root, "--no-libs", "host-init", "--apply"],
         [os.path.join(root, o) for o in outputs], root,
         [binary, "--root", ref_root, "--no-libs", "host-init", "--apply"],
         [os.path.join(ref_root, o) for o in outputs]),
    ]
    for what, extra in (("cdi", ["cdi", "generate", "--output"]),
                        ("slurm", ["slurm", "gres", "--output"])):
        out, ref = os.path.join(base, what, "out"), os.path.join(base, what + "-ref", "out")
        writers.append((what, [binary, "--root", src, "--no-libs"] + extra + [out], [out],
                        os.path.dirname(out),
                        [binary, "--root", src, "--no-libs"] + extra + [ref], [ref]))
    exp, exp_ref = os.path.join(base, "exp"), os.path.join(base, "exp-ref")
    writers.append(("init", [binary, "init", "--force", exp], [exp], exp,
                    [binary, "init", exp_ref], [exp_ref]))
    g, g_ref = os.path.join(base, "g", "copy"), os.path.join(base, "g-ref", "copy")
    writers.append(("gather", [binary, "--root", src, "--no-libs", "gather", g], [g],
                    os.path.dirname(g), [binary, "--root", src, "--no-libs", "gather", g_ref],
                    [g_ref]))
    inside = []
    for what, cmd, targets, area, ref_cmd, refs in writers:
        t0 = time.monotonic()
        r = run(ref_cmd, env=slow)
        took = time.monotonic() - t0
        check(r.returncode == 0, f"{what}: reference run: exit {r.returncode} {r.stderr}")
        expected = [listing(x) if os.path.isdir(x) else open(x, "rb").read() for x in refs]
        interrupted = 0
        for i in range(KILLS):
            for t in targets:  # each run has something to write
                if what in ("init", "gather"):
                    continue
                if os.path.lexists(t):
                    os.unlink(t)
            if what == "gather" and os.path.isdir(g):
                shutil.rmtree(g)
            killed(cmd, rng.uniform(0, took * 1.2), slow)
            interrupted += bool(temporaries(area))
            for t, want in zip(targets, expected):
                if not os.path.lexists(t):
                    continue
                if isinstance(want, dict):
                    # A killed run's own temporary may lie there until the next run.
                    have = {k: v for k, v in listing(t).items()
                            if not any(tag in k for tag in TEMP_TAGS)}
                    whole = have == want if what == "gather" else all(
                        have.get(k) in (None, v) for k, v in want.items()) and all(
                        k in want for k in have)
                else:
                    whole = open(t, "rb").read() == want
                if not whole:
                    check(False, f"{what}: kill {i}: {t} is half-written")
        print(f"     {what}: {interrupted} of {KILLS} kills left a temporary behind")
        inside.append(interrupted)
        if what == "gather" and os.path.isdir(g):
            shutil.rmtree(g)  # a kill after the rename left a whole tree: gather again
        r = run(cmd)
        check(r.returncode == 0, f"{what}: the run after the kills: exit {r.returncode} {r.stderr}")
        check(not temporaries(area), f"{what}: no stale temporary after the next run: "
              f"{temporaries(area)}")
        for t, want in zip(targets, expected):
            have = listing(t) if os.path.isdir(t) else open(t, "rb").read()
            check(have == want, f"{what}: the next run's {os.path.basename(t)} is whole")
    # About half the kills land between a temporary's creation and its rename.
    check(sum(inside) >= 5, f"kills that landed inside a write: {sum(inside)} (expected >= 5)")


def main():
    binary, hosts, preload = sys.argv[1:4]
    base = tempfile.mkdtemp(prefix="writes.")
    try:
        s = Scratch(base)
        host_init_links(binary, s, hosts)
        cdi_links(binary, s, hosts)
        init_links(binary, s)
        gather_links(binary, s, hosts)
        slurm_k8s_links(binary, s, hosts)
        kill_writers(binary, s, hosts, preload)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    if FAILED:
        print(f"{len(FAILED)} failure(s)")
        sys.exit(1)
    print("PASS: writes stay confined")


if __name__ == "__main__":
    main()
