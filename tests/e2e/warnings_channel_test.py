#!/usr/bin/env python3
"""One channel for warnings, for every command: on a copy of a fixture host with one corrupted
sysfs attribute, each command that discovers the host says so exactly once on stderr
("anygpu: warning: WHERE: MESSAGE") and, when it prints JSON, exactly once in the document's
top-level "warnings"; never in human output on stdout. -q silences stderr only.

The command list is read from the binary (--help-dump): a command this file does not place
(probing, with its invocations, or not probing, with the reason) fails the test, so a new
command cannot drop discovery's warnings unnoticed.

Usage: warnings_channel_test.py ANYGPU HOSTS_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import Exporter  # noqa: E402

BROKEN = "/sys/bus/pci/devices/0000:05:00.0/numa_node"
WARNING = f"{BROKEN}: not text (NUL bytes)"
LINE = f"anygpu: warning: {WARNING}"

# Each probing command: (arguments after the global options, what stdout is).
PROBING = {
    "detect": [(["detect"], "human"), (["--json", "detect"], "json")],
    "check": [(["check", "{spec}"], "human"), (["--json", "check", "{spec}"], "json")],
    "select": [(["select"], "shell"), (["select", "--format", "dotenv"], "dotenv"),
               (["--json", "select"], "json")],
    "run": [(["run", "--dry-run", "--", "true"], "human"),
            (["--json", "run", "--dry-run", "--", "true"], "json")],
    "metrics": [(["metrics"], "human"), (["metrics", "--csv"], "human"),
                (["metrics", "--prometheus"], "human"), (["--json", "metrics"], "json")],
    "top": [(["top", "-n", "1"], "human")],
    "doctor": [(["doctor", "--no-framework"], "human"),
               (["--json", "doctor", "--no-framework"], "json")],
    "wheel": [(["wheel"], "human"), (["--json", "wheel"], "json")],
    "host-init": [(["host-init"], "human"), (["--json", "host-init"], "json")],
    "cdi generate": [(["cdi", "generate"], "human")],
    "slurm gres": [(["slurm", "gres"], "human"), (["--json", "slurm", "gres"], "json")],
    "k8s labels": [(["k8s", "labels", "--health"], "human"),
                   (["--json", "k8s", "labels", "--health"], "json")],
    "k8s job": [(["k8s", "job", "--image", "example/train:1", "--", "python", "train.py"],
                 "human")],
    # The patch goes to the API server as it is: its warnings are on stderr only.
    "k8s taint": [(["k8s", "taint", "--node", "{tmp}/node.json"], "human")],
    "health": [(["health"], "human"), (["--json", "health"], "json"),
               (["health", "--slurm", "--dry-run"], "human")],
    "ps": [(["ps", "--pod-resources", ""], "human"),
           (["--json", "ps", "--pod-resources", ""], "json")],
    "topo": [(["topo"], "human"), (["--json", "topo"], "json")],
    # A replayed host's devices are skipped without a launch: nothing tested, exit 3.
    "preflight": [(["preflight"], "human"), (["--json", "preflight"], "json")],
    # A ROCm image whose kernels fit the fixture's MI300X devices (exit 0).
    "image check": [(["image", "check", "{image}"], "human"),
                    (["--json", "image", "check", "{image}"], "json")],
}
# Commands whose exit on the fixture is not 0 by design.
EXIT = {"preflight": 3}
IMAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "image", "examples",
                     "torch-rocm62.tar")
# Commands that do not discover the host, and why; those with JSON still carry "warnings".
NOT_PROBING = {
    "init": "scaffolds files from templates",
    "vendors": "prints the registry",
    "cdi list": "reads CDI spec files, not devices",
    "hang-report": "reads the beat files of a launch's hang directory, not devices",
    "report": "reads the exporter's job journals, not devices",
    "cdi hook update-ldcache": "run by the container runtime on a container's state",
    "cdi hook create-dev-char-links": "run by the container runtime on a container's state",
}
JSON_WITHOUT_PROBING = [["--json", "init", "{tmp}/scaffold"], ["--json", "vendors"],
                        ["--json", "cdi", "list"]]
# Checked by hand below: a server, and a copy whose replay must keep the warning.
SPECIAL = {"exporter", "gather"}

failures = []


def fail(name, why, out="", err=""):
    failures.append(name)
    print(f"FAIL {name}: {why}\n--- stdout:\n{out[-2000:]}\n--- stderr:\n{err[-2000:]}")


def leaf_commands(binary):
    doc = json.loads(subprocess.run([binary, "--help-dump"], capture_output=True, text=True,
                                    check=True).stdout)
    out = []

    def walk(node, path):
        subs = node.get("commands", [])
        if path and not subs:
            out.append(" ".join(path))
        for s in subs:
            walk(s, path + [s["name"]])
    walk(doc, [])
    return out


def run(binary, root, args, cwd):
    # `image check` caches what images hold: a private cache beside the run, not the user's.
    cache = os.path.join(cwd, ".image-cache")
    os.makedirs(cache, exist_ok=True)
    return subprocess.run([binary, "--root", root, "--no-libs", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1", "ANYGPU_CACHE_DIR": cache})


def stderr_says_once(name, p):
    n = p.stderr.splitlines().count(LINE)
    if n != 1:
        fail(name, f"stderr has the warning {n} times, expected once", p.stdout, p.stderr)


def check_output(name, kind, p):
    if kind == "json":
        try:
            doc = json.loads(p.stdout)
        except ValueError as e:
            return fail(name, f"stdout is not one JSON document ({e})", p.stdout, p.stderr)
        if doc.get("warnings", []).count(WARNING) != 1:
            return fail(name, "top-level warnings lacks the warning or repeats it", p.stdout)
        if p.stdout.count(BROKEN) != 1:
            return fail(name, "the document names the broken file outside warnings too",
                        p.stdout)
    elif BROKEN in p.stdout:
        return fail(name, "human output on stdout carries the warning", p.stdout, p.stderr)
    if kind == "shell":
        bad = [l for l in p.stdout.splitlines() if not re.match(r"(export|unset) [A-Z_]", l)]
        if bad:
            fail(name, f"shell output has non-shell lines {bad}", p.stdout)


def check_probing(binary, root, tmp):
    for command, runs in PROBING.items():
        for args, kind in runs:
            args = [a.format(spec=f"{tmp}/runtime-spec.yaml", tmp=tmp, image=IMAGE) for a in args]
            name = " ".join(args)
            p = run(binary, root, args, tmp)
            before = len(failures)
            if p.returncode != EXIT.get(command, 0):
                fail(name, f"exit {p.returncode}", p.stdout, p.stderr)
                continue
            stderr_says_once(name, p)
            check_output(name, kind, p)
            if len(failures) == before:
                print(f"ok   {name}")


def check_quiet(binary, root, tmp):
    for args in (["-q", "detect"], ["-q", "--json", "detect"]):
        p = run(binary, root, args, tmp)
        if p.returncode != 0 or BROKEN in p.stderr:
            fail(" ".join(args), "-q must keep warnings off stderr", p.stdout, p.stderr)
        elif "--json" in args and json.loads(p.stdout)["warnings"] != [WARNING]:
            fail(" ".join(args), "-q must not take warnings out of the document", p.stdout)
        else:
            print(f"ok   {' '.join(args)}")


def check_not_probing(binary, root, tmp):
    for args in JSON_WITHOUT_PROBING:
        args = [a.format(tmp=tmp) for a in args]
        p = run(binary, root, args, tmp)
        doc = json.loads(p.stdout) if p.returncode == 0 else {}
        if doc.get("warnings") != []:
            fail(" ".join(args), "a JSON document without warnings must still have \"warnings\": []",
                 p.stdout, p.stderr)
        else:
            print(f"ok   {' '.join(args)}")


def check_exporter(binary, root):
    e = Exporter(binary, ["--root", root, "--no-libs"])
    e.proc.terminate()
    e.proc.wait(timeout=30)
    lines = (e.stderr + e.proc.stderr.read().decode(errors="replace")).splitlines()
    if lines.count(LINE) != 1:
        fail("exporter", "its log lacks the warning or repeats it", err="\n".join(lines))
    else:
        print("ok   exporter")


def check_gather(binary, root, tmp):
    copy = f"{tmp}/gathered"
    p = run(binary, root, ["gather", copy], tmp)
    replay = run(binary, copy, ["detect"], tmp)
    if p.returncode != 0 or replay.stderr.splitlines().count(LINE) != 1:
        fail("gather", "the gathered copy must replay the warning", replay.stdout,
             p.stderr + replay.stderr)
    else:
        print("ok   gather (replayed)")


def main():
    binary, hosts = sys.argv[1], sys.argv[2]
    placed = set(PROBING) | set(NOT_PROBING) | SPECIAL
    unplaced = [c for c in leaf_commands(binary) if c not in placed]
    if unplaced:
        fail("command table", f"commands not placed in this test: {unplaced}")
    with tempfile.TemporaryDirectory() as tmp:
        root = shutil.copytree(f"{hosts}/mi300x-8x", f"{tmp}/host", symlinks=True)
        with open(f"{root}{BROKEN}", "wb") as f:
            f.write(b"x\0\0")
        with open(f"{tmp}/runtime-spec.yaml", "w") as f:
            f.write("required_features:\n  - vendor: [amd]\n")
        with open(f"{tmp}/node.json", "w") as f:
            f.write('{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}')
        check_probing(binary, root, tmp)
        check_quiet(binary, root, tmp)
        check_not_probing(binary, root, tmp)
        check_exporter(binary, root)
        check_gather(binary, root, tmp)
    if failures:
        print(f"{len(failures)} failed: {failures}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
