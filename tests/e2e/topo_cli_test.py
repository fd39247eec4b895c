#!/usr/bin/python3
"""`anygpu topo` end to end: goldens of the matrix and of --json on fixture hosts, the JSON
schema, no warnings on the clean MI210 fixture, and damaged KFD links left out with a warning
naming the file (exit 0, no crash).

Usage: topo_cli_test.py ANYGPU TESTS_DIR
"""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema

GOLDEN_HOSTS = ["mi210-xgmi-8x", "mi300x-8x", "h100-8x", "workstation-mixed"]
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def topo(binary, root, *args):
    return subprocess.run([binary, "--root", str(root), "--no-libs", "topo", *args],
                          capture_output=True, text=True, timeout=60)


def main(binary, tests):
    tests = Path(tests).resolve()
    schema = json.loads((tests.parent / "schemas" / "topology.schema.json").read_text())
    golden = tests / "golden" / "topo"
    for host in GOLDEN_HOSTS:
        root = tests / "hosts" / host
        js, text = topo(binary, root, "--json"), topo(binary, root)
        check("exit 0 " + host, js.returncode == 0 and text.returncode == 0, js.stderr)
        check("golden json " + host, js.stdout == (golden / (host + ".json")).read_text())
        check("golden text " + host, text.stdout == (golden / (host + ".txt")).read_text())
        doc = json.loads(js.stdout)
        try:
            jsonschema.validate(doc, schema)
            check("schema " + host, True)
        except jsonschema.ValidationError as e:
            check("schema " + host, False, e.message)
    clean = json.loads(topo(binary, tests / "hosts" / "mi210-xgmi-8x", "--json").stdout)
    check("clean fixture has no warnings", clean["warnings"] == [], str(clean["warnings"]))
    check("two hives of four", len(clean["links"]) == 12, str(len(clean["links"])))
    check("every NIC nearest to one device",
          all(len(n["nearest_devices"]) == 1 for n in clean["nics"]))
    damaged(binary, tests, schema)
    return 1 if failures else 0


def damaged(binary, tests, schema):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        shutil.copytree(tests / "hosts" / "mi210-xgmi-8x", root, symlinks=True)
        nodes = root / "sys/class/kfd/kfd/topology/nodes"
        (nodes / "2/io_links/2/properties").write_text(
            "type 11\nnode_from 2\nnode_to 42\nweight 15\n")
        (nodes / "8/io_links/3/properties").write_text(
            "type 11\nnode_from 8\nnode_to 9\nweight 99999\n")
        r = topo(binary, root, "--json")
        check("damaged: exit 0", r.returncode == 0, r.stderr)
        doc = json.loads(r.stdout)
        jsonschema.validate(doc, schema)
        w = doc["warnings"]
        prefix = "/sys/class/kfd/kfd/topology/nodes/"
        check("damaged: missing node named",
              prefix + "2/io_links/2/properties: link to node 42, which does not exist; left out"
              in w, str(w))
        check("damaged: weight out of range named",
              prefix + "8/io_links/3/properties: weight 99999 out of range 1..1000; left out"
              in w, str(w))
        check("damaged: links left out", len(doc["links"]) == 10, str(len(doc["links"])))
        t = topo(binary, root)
        check("damaged: human warnings on stderr",
              t.returncode == 0 and "anygpu: warning: " + prefix + "2/io_links/2" in t.stderr,
              t.stderr)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
