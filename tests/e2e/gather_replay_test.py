#!/usr/bin/python3
"""`anygpu gather` then `anygpu --root BUNDLE …` answers as the source does, through the CLI.

For every fixture host in tests/hosts, as it is and with what doctor, health and run read beyond
discovery added (/etc/group, CDI specs in /etc/cdi and behind an absolute /var/run link, a link
loop, a kernel log): `detect --json`, `doctor --json --no-framework` and `health --json` on the
bundle equal the same on the source, field by field, once each root is written as <root>. Then
the bundle's manifest, and `gather --redact`: no host name, GPU UUID or user name left anywhere,
the same devices detected.

  gather_replay_test.py ANYGPU HOSTS_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ANYGPU, HOSTS = sys.argv[1], sys.argv[2]
ENV = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "ANYGPU_ROOT")}
COMMANDS = (["detect", "--json"], ["doctor", "--json", "--no-framework"], ["health", "--json"])
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def anygpu(*args):
    return subprocess.run([ANYGPU, "--no-libs", *args], capture_output=True, text=True,
                          env=ENV, timeout=120)


def answer(root, command):
    r = anygpu("--root", root, *command)
    text = r.stdout.replace(root, "<root>")
    return r.returncode, json.loads(text) if text.strip() else None


def differences(a, b, where=""):
    """JSON paths at which `a` and `b` differ."""
    if type(a) is not type(b):
        return [f"{where or '/'}: {a!r} != {b!r}"]
    if isinstance(a, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{where}/{k}: only in {'source' if k in a else 'bundle'}")
            else:
                out += differences(a[k], b[k], f"{where}/{k}")
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{where}: {len(a)} entries != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{where}/{i}")]
    return [] if a == b else [f"{where or '/'}: {a!r} != {b!r}"]


def enrich(src, dest):
    shutil.copytree(src, dest, symlinks=True)
    os.makedirs(f"{dest}/etc/cdi", exist_ok=True)
    with open(f"{dest}/etc/group", "w") as f:
        f.write("root:x:0:\nvideo:x:44:alice\nrender:x:109:alice\nalice:x:1001:\n")
    with open(f"{dest}/etc/cdi/stale.yaml", "w") as f:
        f.write('cdiVersion: "0.6.0"\nkind: nvidia.com/gpu\ndevices:\n  - name: "0"\n'
                "    containerEdits:\n      deviceNodes: [{path: /dev/nvidia0}]\n")
    os.symlink("loop.yaml", f"{dest}/etc/cdi/loop.yaml")
    os.makedirs(f"{dest}/var", exist_ok=True)
    os.symlink("/run", f"{dest}/var/run")
    os.makedirs(f"{dest}/run/cdi")
    with open(f"{dest}/run/cdi/amd.yaml", "w") as f:
        f.write('cdiVersion: "0.6.0"\nkind: amd.com/gpu\ndevices:\n  - name: "0"\n'
                "    containerEdits:\n      deviceNodes: [{path: /dev/kfd}]\n")
    with open(f"{dest}/dev/kmsg", "w") as f:
        f.write("3,100,1000000,-;NVRM: Xid (PCI:0000:18:00): 79, pid=7, name=python3, GPU has "
                "fallen off the bus.\n6,101,2000000,-;systemd-logind[1]: New session of user "
                "alice.\n")


def replays(name, source, bundle):
    r = anygpu("--root", source, "gather", bundle)
    check(r.returncode == 0 and "anygpu-gather.json" in r.stderr,
          f"{name}: gather: exit {r.returncode}" + ("" if r.returncode == 0 else r.stderr))
    for command in COMMANDS:
        (rc_a, a), (rc_b, b) = answer(source, command), answer(bundle, command)
        diff = differences(a, b)
        check(rc_a == rc_b and not diff,
              f"{name}: {' '.join(command)}: exit {rc_a}/{rc_b}; {diff[:3] or 'equal'}")


def manifest_and_redaction(base):
    source = os.path.join(base, "h100-8x-enriched")
    bundle = os.path.join(base, "h100-redacted")
    r = anygpu("--root", source, "gather", "--redact", bundle)
    check(r.returncode == 0 and "anygpu: redacted: " in r.stderr, f"gather --redact: {r.stderr}")
    with open(os.path.join(bundle, "anygpu-gather.json")) as f:
        m = json.load(f)
    check(m["schema"] == "anygpu.gather/v1" and m["redacted"] is True, "manifest: schema")
    check(m["anygpu"].startswith("anygpu ") and m["gathered_at"].endswith("Z"),
          f"manifest: version and time: {m['anygpu']} {m['gathered_at']}")
    check("--redact" in m["command"] and "<path>" in m["command"], f"command: {m['command']}")
    check(m["kernel_log"]["records"] == 2 and m["kernel_log"]["kept_records"] == 1,
          f"kernel log: {m['kernel_log']}")
    with open(os.path.join(source, "proc/sys/kernel/hostname")) as f:
        hostname = f.read().strip()
    uuids = []
    for d in os.listdir(os.path.join(source, "proc/driver/nvidia/gpus")):
        with open(os.path.join(source, "proc/driver/nvidia/gpus", d, "information")) as f:
            uuids += [line.split()[-1] for line in f if line.startswith("GPU UUID")]
    found = []
    for d, dirs, files in os.walk(bundle):
        for n in files:
            p = os.path.join(d, n)
            if os.path.islink(p):
                data = os.readlink(p).encode()
            else:
                with open(p, "rb") as f:
                    data = f.read()
            found += [(n, s) for s in [hostname, "alice", *uuids] if s.encode() in data]
    check(len(uuids) == 8 and not found, f"nothing identifying left: {found[:3]}")
    (_, a), (_, b) = answer(source, COMMANDS[0]), answer(bundle, COMMANDS[0])
    keep = ("pci_bus_id", "vendor", "name", "index", "status")
    strip = lambda doc: [{k: d.get(k) for k in keep} for d in doc["devices"]]
    check(strip(a) == strip(b) and len(a["devices"]) == 8, "redacted: the same devices")
    check(all(x["uuid"] != y["uuid"] for x, y in zip(a["devices"], b["devices"])),
          "redacted: stand-in UUIDs")


def main():
    names = sorted(n for n in os.listdir(HOSTS)
                   if os.path.isfile(os.path.join(HOSTS, n, "expected.json")))
    check(len(names) >= 12, f"fixture hosts: {len(names)}")
    base = tempfile.mkdtemp(prefix="gather-replay.")
    try:
        for name in names:
            replays(name, os.path.join(HOSTS, name), os.path.join(base, name))
            enriched = os.path.join(base, name + "-enriched")
            enrich(os.path.join(HOSTS, name), enriched)
            replays(name + " (enriched)", enriched, os.path.join(base, name + "-bundle"))
        manifest_and_redaction(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("PASS: every fixture host replays from its gathered bundle")


main()
