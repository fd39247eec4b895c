#!/usr/bin/python3
"""A vendor added as data only, at run time: ANYGPU_REGISTRY names tests/registry/acme (a
made-up vendor no code and no built-in data knows), and every command a user runs sees it on
the fixture tests/registry/acme-host — detect, select, run --dry-run (native and container),
cdi generate, slurm gres, k8s labels and job, metrics (generic hwmon), vendors — as does the
Python package through the C ABI (anygpu.detect, anygpu.select, anygpu.torch.device). Without
the variable the same host has no accelerator; a broken registry stops every command and
every C ABI call with exit 2 naming FILE:LINE:COLUMN.

usage: registry_override_test.py ANYGPU LIBANYGPU_SO PYTHON_PACKAGE_DIR ACME_REGISTRY ACME_HOST
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

FAILS = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)
        if detail:
            print("     " + detail.replace("\n", "\n     "))


def main():
    binary, library, package, registry, host = sys.argv[1:6]
    work = tempfile.mkdtemp(prefix="anygpu-registry-")
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("ANYGPU_")}
    env = dict(base_env, ANYGPU_REGISTRY=registry)

    def cli(*args, environ=env, cwd=work):
        return subprocess.run([binary, "--root", host, "--no-libs", *args], env=environ,
                              cwd=cwd, capture_output=True, text=True, timeout=60)

    try:
        config = os.path.join(work, "accelerator-config.yaml")
        with open(config, "w") as f:
            f.write("backend: acme\ndevices: [1]\n")

        r = cli("detect", "--json", environ=base_env)
        check(r.returncode == 0 and json.loads(r.stdout)["devices"] == [],
              "without ANYGPU_REGISTRY the host has no accelerator anygpu knows", r.stdout)

        r = cli("detect", "--json")
        devices = json.loads(r.stdout)["devices"] if r.returncode == 0 else []
        check([d["vendor"] for d in devices] == ["acme", "acme"] and
              devices[1]["name"] == "Acme N1", "detect: two Acme devices, named from its "
              "devices.yaml", r.stdout + r.stderr)

        r = cli("select", "--config", config)
        check(r.returncode == 0 and "ANYGPU_VENDOR=acme" in r.stdout and
              "ACME_VISIBLE_DEVICES=1" in r.stdout and "ACME_DEVICE_ORDER=PCI_BUS_ID" in r.stdout,
              "select: the vendor's visible-devices and extra variables", r.stdout + r.stderr)

        r = cli("run", "--config", config, "--no-check", "--dry-run", "--", "true")
        check(r.returncode == 0 and "ACME_VISIBLE_DEVICES=1" in r.stdout,
              "run --dry-run (native): the selection's environment", r.stdout + r.stderr)

        r = cli("run", "--config", config, "--no-check", "--dry-run", "--engine", "podman",
                "--container", "localhost/exp:1", "--", "true")
        check(r.returncode == 0 and f"{host}/dev/acme1:/dev/acme1" in r.stdout and
              f"{host}/dev/acme_ctl:/dev/acme_ctl" in r.stdout and "acme_display" not in r.stdout
              and "/opt/acme/lib" in r.stdout,
              "run --container --dry-run: its device, its shared node, its mounts; the withheld "
              "node not", r.stdout + r.stderr)

        r = cli("cdi", "generate", "--vendor", "acme")
        check(r.returncode == 0 and "kind: acme.example/npu" in r.stdout and
              "/dev/acme_ctl" in r.stdout and "acme_display" not in r.stdout,
              "cdi generate: the vendor's kind and nodes", r.stdout + r.stderr)

        r = cli("slurm", "gres")
        # Beneath --root the File= paths are the fixture's, as slurmd here would open them.
        check(r.returncode == 0 and r.stdout.count(" File=") == 2 and
              "File=" + os.path.join(os.path.abspath(host), "dev", "acme0") in r.stdout and "Type=n1" in r.stdout,
              "slurm gres: one line per device", r.stdout + r.stderr)

        r = cli("k8s", "labels")
        check(r.returncode == 0 and "acme" in r.stdout, "k8s labels: the vendor",
              r.stdout + r.stderr)

        r = cli("k8s", "job", "--image", "localhost/exp:1", "--", "python", "train.py")
        check(r.returncode == 0 and "acme.example/npu: 1" in r.stdout,
              "k8s job: the vendor's device-plugin resource", r.stdout + r.stderr)

        r = cli("metrics", "--json")
        doc = json.loads(r.stdout) if r.returncode == 0 else {"devices": [{}, {}]}
        check(doc["devices"][1].get("vendor") == "acme" and
              doc["devices"][1].get("temperature_celsius") == 42.0,
              "metrics: generic hwmon values", r.stdout + r.stderr)

        r = cli("vendors", "--json")
        check(r.returncode == 0 and [v["id"] for v in json.loads(r.stdout)["vendors"]] == ["acme"],
              "vendors: the registry in force", r.stdout[:400] + r.stderr)

        # Python through the C ABI, in a clean interpreter with the same environment.
        code = (
            "import json, anygpu, anygpu.torch as t\n"
            f"inv = anygpu.detect(root={host!r}, no_libs=True)\n"
            f"sel = anygpu.select(config={config!r}, root={host!r}, no_libs=True)\n"
            "print(json.dumps({'vendors': [d['vendor'] for d in inv['devices']],\n"
            "                  'selected': sel['vendor'], 'device': str(t.device())}))\n")
        py_env = dict(env, PYTHONPATH=package, ANYGPU_LIBRARY=library, ANYGPU_ROOT=host,
                      ANYGPU_NO_LIBS="1", PYTHONDONTWRITEBYTECODE="1")
        r = subprocess.run(["/usr/bin/python3", "-c", code], env=py_env, cwd=work,
                           capture_output=True, text=True, timeout=120)
        got = json.loads(r.stdout.splitlines()[-1]) if r.returncode == 0 else {}
        check(got == {"vendors": ["acme", "acme"], "selected": "acme", "device": "cuda:0"},
              "python: detect, select and anygpu.torch.device() see the vendor",
              r.stdout + r.stderr)

        # A broken registry: every entry point refuses, naming the place.
        broken = os.path.join(work, "broken")
        shutil.copytree(registry, broken)
        path = os.path.join(broken, "vendors.yaml")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace("drivers: [acme_npu]", "drivers: acme_npu"))
        line = text[:text.index("drivers: [acme_npu]")].count("\n") + 1
        bad_env = dict(env, ANYGPU_REGISTRY=broken)
        for args in (("detect",), ("select", "--config", config), ("vendors",)):
            r = cli(*args, environ=bad_env)
            check(r.returncode == 2 and f"{path}:{line}:" in r.stderr and not r.stdout,
                  f"broken registry: `{' '.join(args)}` exits 2 naming {path}:{line}",
                  f"rc {r.returncode}\n{r.stdout}{r.stderr}")
        r = subprocess.run(["/usr/bin/python3", "-c", "import anygpu; anygpu.detect()"],
                           env=dict(py_env, ANYGPU_REGISTRY=broken), capture_output=True,
                           text=True, timeout=60)
        check(r.returncode != 0 and f"{path}:{line}:" in r.stderr,
              "broken registry: the C ABI's error reaches Python", r.stderr[-600:])

        # A registry naming a variable that is shell code: refused at its line and column, and
        # `eval "$(anygpu select)"` as users write it runs nothing.
        hostile = os.path.join(work, "hostile")
        shutil.copytree(registry, hostile)
        path = os.path.join(hostile, "vendors.yaml")
        marker = os.path.join(work, "pwned")
        with open(path, "w") as f:
            f.write(text.replace("extra: {ACME_DEVICE_ORDER: PCI_BUS_ID}",
                                 f'extra: {{"X$(touch {marker})": PCI_BUS_ID}}'))
        line = text[:text.index("extra: {ACME_DEVICE_ORDER")].count("\n") + 1
        hostile_env = dict(env, ANYGPU_REGISTRY=hostile)
        r = cli("select", "--config", config, environ=hostile_env)
        check(r.returncode == 2 and f"{path}:{line}:" in r.stderr and
              "is not a variable name" in r.stderr and not r.stdout,
              "a variable name that is shell code: select exits 2 naming its line",
              f"rc {r.returncode}\n{r.stdout}{r.stderr}")
        shell = subprocess.run(
            ["/bin/sh", "-c", 'eval "$("$0" --root "$1" --no-libs select --config "$2")"',
             binary, host, config], env=hostile_env, cwd=work, capture_output=True, text=True,
            timeout=60)
        check(not os.path.exists(marker), "eval \"$(anygpu select)\" runs no command from the "
              "registry", shell.stdout + shell.stderr)

        r = cli("detect", environ=dict(env, ANYGPU_REGISTRY=os.path.join(work, "nowhere")))
        check(r.returncode == 2 and "vendors.yaml: no such file" in r.stderr,
              "a registry directory that does not exist: exit 2", r.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILS:
        print(f"{len(FAILS)} check(s) failed")
        sys.exit(1)
    print("PASS: registry override")


if __name__ == "__main__":
    main()
