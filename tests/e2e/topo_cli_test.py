#!/usr/bin/python3
"""`anygpu topo` end to end: goldens of the matrix and of --json on fixture hosts, the JSON
schema, no warnings on the clean MI210 fixture, and damaged KFD links left out with a warning
naming the file (exit 0, no crash). With MOCK_NVML (tests/mocklibs/nvml_nvlink.cc, copied
into an h100-8x root as libnvidia-ml.so.1): NVLink through NVSwitches (goldens), a pairwise
layout, the choices that use it (select, slurm gres Links=, k8s labels) and NVML's bad answers
left out with a warning naming NVML.

With MOCK_NVML_OK (tests/mocklibs/nvml_ok.cc: no NVLink entry points): links unknown, said.

With MOCK_DCMI (tests/mocklibs/dcmi_metrics.cc, copied into an ascend-910b-8x root where the
registry looks for libdcmi.so): HCCS between all eight 910Bs (goldens), two rings of four where
select keeps four NPUs in one ring, gres Links= and k8s labels from HCCS, DCMI's bad or absent
answers left out with a warning naming DCMI and today's "not read" warning kept.

With MOCK_DCMI_NO_TOPO (tests/mocklibs/dcmi_no_topo.cc: no topology call): HCCS unknown, said,
and the "not read" warning kept.

With MOCK_ZE_FABRIC (tests/mocklibs/ze_fabric.cc, copied into an intel-max-arc root as
libze_loader.so.1; its edge counts are synthetic): Xe Link between the two Max 1550 cards with
their edge count (goldens), select, gres Links= and k8s labels from it, and a failing fabric call
keeping the "not read" warning with the reason.

Usage: topo_cli_test.py ANYGPU TESTS_DIR [MOCK_NVML [MOCK_NVML_OK [MOCK_DCMI [MOCK_DCMI_NO_TOPO
       [MOCK_ZE_FABRIC]]]]]
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proc_fixture import host_with_library  # noqa: E402

GOLDEN_HOSTS = ["mi210-xgmi-8x", "mi300x-8x", "h100-8x", "workstation-mixed", "mi308x-8x-cpx"]
# Its JSON golden would hold 1953 links: the text golden and partitions() check it instead.
TEXT_GOLDEN_HOSTS = ["mi300x-8x-cpx"]
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def topo(binary, root, *args):
    return subprocess.run([binary, "--root", str(root), "--no-libs", "topo", *args],
                          capture_output=True, text=True, timeout=60)


def with_mock(binary, root, variable, layout, *args):
    """anygpu with libraries loaded, the mock's layout in VARIABLE (unset when layout is None)."""
    env = dict(os.environ)
    env.pop(variable, None)
    if layout:
        env[variable] = layout
    return subprocess.run([binary, "--root", str(root), *args], capture_output=True, text=True,
                          timeout=60, env=env)


def with_libs(binary, root, layout, *args):
    return with_mock(binary, root, "MOCK_NVML_NVLINK", layout, *args)


def main(binary, tests, mock=None, mock_ok=None, mock_dcmi=None, mock_dcmi_no_topo=None,
         mock_ze_fabric=None):
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
    for host in TEXT_GOLDEN_HOSTS:
        text = topo(binary, tests / "hosts" / host)
        check("golden text " + host, text.returncode == 0 and
              text.stdout == (golden / (host + ".txt")).read_text())
        js = topo(binary, tests / "hosts" / host, "--json")
        try:
            jsonschema.validate(json.loads(js.stdout), schema)
            check("schema " + host, True)
        except jsonschema.ValidationError as e:
            check("schema " + host, False, e.message)
    clean = json.loads(topo(binary, tests / "hosts" / "mi210-xgmi-8x", "--json").stdout)
    check("clean fixture has no warnings", clean["warnings"] == [], str(clean["warnings"]))
    check("two hives of four", len(clean["links"]) == 12, str(len(clean["links"])))
    check("every NIC nearest to one device",
          all(len(n["nearest_devices"]) == 1 for n in clean["nics"]))
    damaged(binary, tests, schema)
    partitions(binary, tests, schema)
    no_nic_variables(binary, tests)
    # Links that exist on these products but are not read: said, never an empty matrix alone.
    for host, vendor, link in [("ascend-910b-8x", "ascend", "HCCS links between NPUs are not read"),
                               ("intel-max-arc", "intel", "Xe Link between Data Center GPU Max")]:
        doc = json.loads(topo(binary, tests / "hosts" / host, "--json").stdout)
        check(f"{host}: unread {link.split()[0]} said",
              any(w.startswith(f"{vendor}: {link}") for w in doc["warnings"]), str(doc["warnings"]))
    for host in ("mi300x-8x", "h100-8x", "workstation-mixed"):
        doc = json.loads(topo(binary, tests / "hosts" / host, "--json").stdout)
        check(f"{host}: no unread-link warning",
              not any("are not read" in w or "is not read" in w for w in doc["warnings"]),
              str(doc["warnings"]))
    if mock:
        nvlink(binary, tests, schema, mock)
    if mock_ok:
        nvml_without_nvlink(binary, tests, schema, mock_ok)
    if mock_dcmi:
        hccs(binary, tests, schema, mock_dcmi)
    if mock_dcmi_no_topo:
        dcmi_without_topology(binary, tests, schema, mock_dcmi_no_topo)
    if mock_ze_fabric:
        xe_link(binary, tests, schema, mock_ze_fabric)
    return 1 if failures else 0


MAX_BUSES = ["0000:29:00.0", "0000:9a:00.0"]  # the fixture's two Max 1550 cards
UNREAD_XE_LINK = "intel: Xe Link between Data Center GPU Max cards is not read"


def with_ze_fabric(binary, root, layout, *args):
    return with_mock(binary, root, "MOCK_ZE_FABRIC", layout, *args)


def xe_link(binary, tests, schema, mock):
    golden = tests / "golden" / "topo"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(host_with_library(tests / "hosts" / "intel-max-arc", Path(tmp) / "root", mock,
                                      "libze_loader.so.1"))
        js = with_ze_fabric(binary, root, "tiles", "topo", "--json")
        text = with_ze_fabric(binary, root, "tiles", "topo")
        check("xelink: exit 0", js.returncode == 0 and text.returncode == 0, js.stderr)
        check("xelink: golden json",
              js.stdout == (golden / "intel-max-arc-xelink.json").read_text(), js.stdout)
        check("xelink: golden text",
              text.stdout == (golden / "intel-max-arc-xelink.txt").read_text(), text.stdout)
        doc = json.loads(js.stdout)
        jsonschema.validate(doc, schema)
        # Tiles' edges summed: two between the tiles 0, two between the tiles 1.
        check("xelink: the Max pair joined by 4 edges",
              [(l["a"], l["b"], l["kind"], l.get("count")) for l in doc["links"]] ==
              [(MAX_BUSES[0], MAX_BUSES[1], "xelink", 4)], str(doc["links"]))
        check("xelink: nothing left unread", doc["warnings"] == [], str(doc["warnings"]))
        check("xelink: XL4 in the matrix and its legend",
              " XL4 " in text.stdout and "  XL#  = Xe Link: # edges" in text.stdout, text.stdout)
        devices = json.loads(with_ze_fabric(binary, root, "devices", "topo", "--json").stdout)
        check("xelink: device edges counted",
              [l.get("count") for l in devices["links"]] == [3], str(devices["links"]))

        # The Max cards' tiles are the units (FLAT hierarchy): four of them span both cards,
        # which Xe Link joins.
        sel = with_ze_fabric(binary, root, "tiles", "--json", "select", "--devices", "4")
        check("xelink: select exit 0", sel.returncode == 0, sel.stderr)
        chosen = json.loads(sel.stdout).get("devices", [])
        check("xelink: the Max cards' four tiles chosen",
              chosen == [b + "/" + t for b in MAX_BUSES for t in "01"], str(chosen))
        why = with_ze_fabric(binary, root, "tiles", "select", "--devices", "4", "-v")
        check("xelink: xelink domain named", "in one xelink link domain" in why.stderr,
              why.stderr)
        plain = subprocess.run([binary, "--root", str(tests / "hosts" / "intel-max-arc"),
                                "select", "--devices", "4", "-v"], capture_output=True,
                               text=True, timeout=60)
        check("xelink: no domain named without the fabric",
              "in one xelink link domain" not in plain.stderr,
              plain.stderr)
        gres = with_ze_fabric(binary, root, "tiles", "slurm", "gres")
        check("xelink: gres Links= from Xe Link", "Links=-1,0,0" in gres.stdout and
              "Links=0,-1,4" in gres.stdout and "Links=0,4,-1" in gres.stdout, gres.stdout)
        labels = with_ze_fabric(binary, root, "tiles", "k8s", "labels")
        check("xelink: an xelink domain of 2",
              "link-kind=xelink" in labels.stdout and "link-domain-size=2" in labels.stdout,
              labels.stdout)

        # Only model "XeLink" edges count: read, and no links; nothing said unread.
        other = json.loads(with_ze_fabric(binary, root, "other-model", "topo", "--json").stdout)
        check("other-model: no links, nothing unread",
              other["links"] == [] and other["warnings"] == [], str(other))
        # A failing call: unknown, never "no links"; the not-read warning kept with the reason.
        failed = json.loads(with_ze_fabric(binary, root, "edge-error", "topo", "--json").stdout)
        check("edge-error: no links", failed["links"] == [], str(failed["links"]))
        check("edge-error: not read, and why", any(w.startswith(UNREAD_XE_LINK)
                                                     and "did not answer" in w
                                                     for w in failed["warnings"]) and
              any(w.startswith("Level Zero: Xe Link of 0000:29:00.0, 0000:9a:00.0 unknown: "
                               "zeFabricEdgeGetExp failed") for w in failed["warnings"]),
              str(failed["warnings"]))
        gres = with_ze_fabric(binary, root, "edge-error", "slurm", "gres")
        check("edge-error: no Links=", "Links=" not in gres.stdout, gres.stdout)


DCMI_DIR = "usr/local/Ascend/driver/lib64/driver"  # one of data/vendors.yaml's dirs for dcmi
NPU_BUSES = ["0000:01:00.0", "0000:02:00.0", "0000:41:00.0", "0000:42:00.0",
             "0000:81:00.0", "0000:82:00.0", "0000:c1:00.0", "0000:c2:00.0"]
UNREAD_HCCS = "ascend: HCCS links between NPUs are not read"


def with_dcmi(binary, root, layout, *args):
    return with_mock(binary, root, "MOCK_DCMI_TOPO", layout, *args)


def dcmi_without_topology(binary, tests, schema, mock):
    """A DCMI without dcmi_get_topo_info_by_device_id, through the worker: every NPU's HCCS
    links unknown, said once, and today's "not read" warning kept; no Links=, no domain."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        shutil.copytree(tests / "hosts" / "ascend-910b-8x", root, symlinks=True)
        (root / DCMI_DIR).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(mock, root / DCMI_DIR / "libdcmi.so")
        r = with_dcmi(binary, root, None, "topo", "--json")
        check("no DCMI topology call: exit 0", r.returncode == 0, r.stderr)
        doc = json.loads(r.stdout)
        jsonschema.validate(doc, schema)
        check("no DCMI topology call: unknown, said", doc["warnings"] == [
            "DCMI: HCCS links of " + ", ".join(NPU_BUSES) + " unknown: no "
            "dcmi_get_topo_info_by_device_id in this DCMI",
            UNREAD_HCCS + " (DCMI did not answer for every NPU); `npu-smi info -t topo` shows "
            "them"], str(doc["warnings"]))
        check("no DCMI topology call: no links", doc["links"] == [], str(doc["links"]))
        gres = with_dcmi(binary, root, None, "slurm", "gres")
        check("no DCMI topology call: no Links=", "Links=" not in gres.stdout, gres.stdout)


def hccs(binary, tests, schema, mock):
    golden = tests / "golden" / "topo"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        shutil.copytree(tests / "hosts" / "ascend-910b-8x", root, symlinks=True)
        (root / DCMI_DIR).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(mock, root / DCMI_DIR / "libdcmi.so")

        js = with_dcmi(binary, root, "mesh", "topo", "--json")
        text = with_dcmi(binary, root, "mesh", "topo")
        check("hccs: exit 0", js.returncode == 0 and text.returncode == 0, js.stderr)
        check("hccs: golden json", js.stdout == (golden / "ascend-910b-8x-hccs.json").read_text(),
              js.stdout)
        check("hccs: golden text", text.stdout == (golden / "ascend-910b-8x-hccs.txt").read_text(),
              text.stdout)
        doc = json.loads(js.stdout)
        jsonschema.validate(doc, schema)
        check("hccs: 28 pairs of HCCS", len(doc["links"]) == 28 and
              all(l["kind"] == "hccs" for l in doc["links"]), str(doc["links"][:2]))
        check("hccs: nothing left unread", doc["warnings"] == [], str(doc["warnings"]))
        gres = with_dcmi(binary, root, "mesh", "slurm", "gres")
        check("hccs: gres Links= from HCCS", "Links=-1,1,1,1,1,1,1,1" in gres.stdout, gres.stdout)
        labels = with_dcmi(binary, root, "mesh", "k8s", "labels")
        check("hccs: one hccs domain of 8",
              "link-kind=hccs" in labels.stdout and "link-domain-size=8" in labels.stdout,
              labels.stdout)

        rings = json.loads(with_dcmi(binary, root, "rings", "topo", "--json").stdout)
        pairs = {(l["a"], l["b"]) for l in rings["links"]}
        ring_a = [NPU_BUSES[i] for i in (0, 1, 4, 5)]
        ring_b = [NPU_BUSES[i] for i in (2, 3, 6, 7)]
        want = {(r[i], r[j]) for r in (ring_a, ring_b) for i in range(4) for j in range(i + 1, 4)}
        check("rings: two rings of four", pairs == want, str(sorted(pairs)))
        # Four NPUs: one ring. Neither ring is the first four in bus order, nor one NUMA node,
        # so only the HCCS domain makes this choice.
        sel = with_dcmi(binary, root, "rings", "--json", "select", "--devices", "4")
        check("rings: select exit 0", sel.returncode == 0, sel.stderr)
        chosen = json.loads(sel.stdout).get("devices", [])
        check("rings: four NPUs of one ring", chosen == ring_a, str(chosen))
        why = with_dcmi(binary, root, "rings", "select", "--devices", "4", "-v")
        check("rings: hccs domain named", "in one hccs link domain" in why.stderr, why.stderr)
        gres = with_dcmi(binary, root, "rings", "slurm", "gres")
        check("rings: Links= per ring", "Links=-1,1,0,0,1,1,0,0" in gres.stdout and
              "Links=0,0,-1,1,0,0,1,1" in gres.stdout, gres.stdout)
        labels = with_dcmi(binary, root, "rings", "k8s", "labels")
        check("rings: a link domain of 4",
              "link-kind=hccs" in labels.stdout and "link-domain-size=4" in labels.stdout,
              labels.stdout)

        src = "DCMI dcmi_get_topo_info_by_device_id"
        for layout, expected, links in [
            (None, ["DCMI: HCCS links of " + ", ".join(NPU_BUSES) + " unknown: "
                    "dcmi_get_topo_info_by_device_id is not supported on this chip (error -8255)",
                    UNREAD_HCCS], 0),
            # Every NPU has a pair with the failing one: none of them is known.
            ("error", ["DCMI: HCCS links of 0000:01:00.0 unknown: dcmi_get_topo_info_by_device_id "
                       "failed (0000:01:00.0 to 0000:41:00.0): error -8005", UNREAD_HCCS], 0),
            ("unknown", ["DCMI: HCCS links of 0000:01:00.0 unknown: "
                         "dcmi_get_topo_info_by_device_id answered 9 (0000:01:00.0 to "
                         "0000:02:00.0), an unknown relation", UNREAD_HCCS], 27),
            ("asymmetric", [src + ": 0000:02:00.0 reports HCCS to 0000:01:00.0, which does "
                            "not report it back; left out"], 27),
            ("stranger", ["DCMI: HCCS links of 0000:42:00.0 unknown: "
                          "dcmi_get_topo_info_by_device_id answered 42 (0000:42:00.0 to "
                          "0000:81:00.0), an unknown relation", UNREAD_HCCS], 27),
        ]:
            r = with_dcmi(binary, root, layout, "topo", "--json")
            name = layout or "not supported"
            check(name + ": exit 0", r.returncode == 0, r.stderr)
            doc = json.loads(r.stdout)
            jsonschema.validate(doc, schema)
            for w in expected:
                check(name + ": warned", any(x.startswith(w) for x in doc["warnings"]),
                      str(doc["warnings"]))
            check(name + ": links kept", len(doc["links"]) == links, str(len(doc["links"])))
        unsupported = with_dcmi(binary, root, None, "slurm", "gres")
        check("not supported: no Links=", "Links=" not in unsupported.stdout, unsupported.stdout)


def no_nic_variables(binary, tests):
    """run sets no NIC selection variables on a host with RDMA NICs, natively or in a container
    (docs/run.md says why)."""
    root = str(tests / "hosts" / "mi210-xgmi-8x")
    for extra in ([], ["--container", "localhost/exp:1", "--engine", "podman"]):
        r = subprocess.run([binary, "--root", root, "--no-libs", "run", "--no-check", *extra,
                            "--dry-run", "--", "python", "train.py"],
                           capture_output=True, text=True, timeout=60)
        name = "run " + ("--container" if extra else "native")
        check(name + ": exit 0", r.returncode == 0, r.stderr)
        check(name + ": no NIC variables", "NCCL_" not in r.stdout and "HCCL_" not in r.stdout,
              r.stdout)


def nvlink(binary, tests, schema, mock):
    golden = tests / "golden" / "topo"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(host_with_library(tests / "hosts" / "h100-8x", Path(tmp) / "root", mock))
        js = with_libs(binary, root, "switch", "topo", "--json")
        text = with_libs(binary, root, "switch", "topo")
        check("nvlink: exit 0", js.returncode == 0 and text.returncode == 0, js.stderr)
        check("nvlink: golden json", js.stdout == (golden / "h100-8x-nvlink.json").read_text(),
              js.stdout)
        check("nvlink: golden text", text.stdout == (golden / "h100-8x-nvlink.txt").read_text(),
              text.stdout)
        doc = json.loads(js.stdout)
        jsonschema.validate(doc, schema)
        check("nvlink: 28 pairs of NV18", len(doc["links"]) == 28 and
              all(l["kind"] == "nvlink" and l["count"] == 18 for l in doc["links"]))
        check("nvlink: no warnings", doc["warnings"] == [], str(doc["warnings"]))

        mesh = json.loads(with_libs(binary, root, "mesh", "topo", "--json").stdout)
        pairs = {(l["a"], l["b"]): l["count"] for l in mesh["links"]}
        bus = ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0"]
        want = {(bus[0], bus[1]): 2, (bus[2], bus[3]): 2, (bus[0], bus[2]): 1,
                (bus[0], bus[3]): 1, (bus[1], bus[2]): 1, (bus[1], bus[3]): 1}
        check("mesh: pairwise counts", pairs == want, str(pairs))

        sel = with_libs(binary, root, "switch", "select", "--devices", "4", "-v")
        check("select: nvlink domain named",
              "in one nvlink link domain" in sel.stderr, sel.stderr)
        gres = with_libs(binary, root, "switch", "slurm", "gres")
        check("gres: Links= from NVLink",
              "Links=-1,18,18,18,18,18,18,18" in gres.stdout, gres.stdout)
        labels = with_libs(binary, root, "switch", "k8s", "labels")
        check("labels: one nvlink domain of 8",
              "link-kind=nvlink" in labels.stdout and "link-domain-size=8" in labels.stdout,
              labels.stdout)

        prefix = "NVML nvmlDeviceGetNvLinkRemotePciInfo_v2 "
        for layout, expected in [
            ("bad-remote", [prefix + "(0000:18:00.0 link 0): far end 0000:77:00.0 is no "
                            "accelerator of this host; link left out",
                            prefix + "(0000:18:00.0 link 1): far end is the device itself; "
                            "link left out"]),
            ("asymmetric", ["NVML nvmlDeviceGetNvLinkRemotePciInfo_v2: 0000:18:00.0 reports 2 "
                            "NVLinks to 0000:2a:00.0, which reports 1 back; left out"]),
            ("absurd", ["NVML nvmlDeviceGetNvLinkRemotePciInfo_v2: 30 NVLinks between "
                        "0000:3a:00.0 and 0000:5d:00.0 (at most 18 exist); left out"]),
            ("state-error", ["NVML: NVLinks of 0000:ab:00.0 unknown: nvmlDeviceGetNvLinkState "
                             "failed on link 0: Unknown Error (999)"]),
        ]:
            r = with_libs(binary, root, layout, "topo", "--json")
            check(layout + ": exit 0", r.returncode == 0, r.stderr)
            doc = json.loads(r.stdout)
            jsonschema.validate(doc, schema)
            for w in expected:
                check(layout + ": warned", w in doc["warnings"], str(doc["warnings"]))
        untyped = json.loads(with_libs(binary, root, "no-type", "topo", "--json").stdout)
        check("no-type: switches found by their shared far ends",
              untyped["warnings"] == [] and len(untyped["links"]) == 28 and
              all(l["count"] == 18 for l in untyped["links"]), str(untyped["warnings"][:2]))
        bad = json.loads(with_libs(binary, root, "bad-remote", "topo", "--json").stdout)
        check("bad-remote: the rest stays", len(bad["links"]) == 5, str(bad["links"]))
        err = json.loads(with_libs(binary, root, "state-error", "topo", "--json").stdout)
        check("state-error: other GPUs keep NV18", len(err["links"]) == 21, str(len(err["links"])))


def nvml_without_nvlink(binary, tests, schema, mock_ok):
    """An NVML without the NVLink entry points (tests/mocklibs/nvml_ok.cc, through the worker):
    the links are unknown, said once for every GPU; never an empty matrix passed off as "no
    NVLink", and nothing downstream (gres Links=, select's reasons) claims a link domain."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(host_with_library(tests / "hosts" / "h100-8x", Path(tmp) / "root", mock_ok))
        r = subprocess.run([binary, "--root", str(root), "--json", "topo"], capture_output=True,
                           text=True, timeout=60)
        check("no NVLink calls: exit 0", r.returncode == 0, r.stderr)
        doc = json.loads(r.stdout)
        jsonschema.validate(doc, schema)
        buses = ", ".join(["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
                           "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"])
        check("no NVLink calls: unknown, said", doc["warnings"] == [
            f"NVML: NVLinks of {buses} unknown: no nvmlDeviceGetNvLinkState in this NVML"],
            str(doc["warnings"]))
        check("no NVLink calls: no links claimed", doc["links"] == [], str(doc["links"]))
        gres = subprocess.run([binary, "--root", str(root), "slurm", "gres"],
                              capture_output=True, text=True, timeout=60)
        check("no NVLink calls: no Links= in gres.conf", "Links=" not in gres.stdout, gres.stdout)
        sel = subprocess.run([binary, "--root", str(root), "select", "--devices", "4", "-v"],
                             capture_output=True, text=True, timeout=60)
        check("no NVLink calls: select claims no link domain",
              sel.returncode == 0 and "link domain" not in sel.stderr, sel.stderr)


def partitions(binary, tests, schema):
    """CPX partitions as rows: every two of the MI300X capture's 63 linked, 13 inside a GPU and
    41 across; select and slurm gres use the links; damaged partition links are left out with a
    warning naming the file."""
    root = tests / "hosts" / "mi300x-8x-cpx"
    doc = json.loads(topo(binary, root, "--json").stdout)
    weights = {}
    for l in doc["links"]:
        same = l["a"].split("/")[0] == l["b"].split("/")[0]
        weights.setdefault(same, set()).add(l["weight"])
    check("cpx: 63 partitions, 1953 links", len(doc["partitions"]) == 63 and
          len(doc["links"]) == 1953, str(len(doc["links"])))
    check("cpx: weight 13 inside a GPU, 41 across", weights == {True: {13}, False: {41}},
          str(weights))
    sel = subprocess.run([binary, "--root", str(root), "--no-libs", "select", "--devices", "12",
                          "-v"], capture_output=True, text=True, timeout=60)
    check("cpx: select 12 fills a device first",
          "in one xgmi link domain" in sel.stderr and
          "they span 2 devices (amd 0: 8, amd 1: 4)" in sel.stderr, sel.stderr)
    gres = subprocess.run([binary, "--root", str(root), "--no-libs", "slurm", "gres"],
                          capture_output=True, text=True, timeout=60)
    check("cpx: partition lines carry Links=",
          sum(1 for l in gres.stdout.splitlines()
              if l.startswith("Name=gpu ") and " Links=" in l) == 63 and
          " Links=-1,2,2,2,2,2,2,2,1," in gres.stdout, gres.stdout[:600])
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "root"
        shutil.copytree(root, copy, symlinks=True)
        nodes = copy / "sys/class/kfd/kfd/topology/nodes"
        (nodes / "2/io_links/5/properties").write_text(
            "type 11\nnode_from 2\nnode_to 70\nweight 13\n")
        (nodes / "9/io_links/7/properties").write_text(
            "type 11\nnode_from 9\nnode_to 8\nweight 0\n")
        r = topo(binary, copy, "--json")
        check("cpx damaged: exit 0", r.returncode == 0, r.stderr)
        bad = json.loads(r.stdout)
        jsonschema.validate(bad, schema)
        prefix = "/sys/class/kfd/kfd/topology/nodes/"
        check("cpx damaged: missing node named",
              prefix + "2/io_links/5/properties: link to node 70, which does not exist; left out"
              in bad["warnings"], str(bad["warnings"]))
        check("cpx damaged: weight out of range named",
              prefix + "9/io_links/7/properties: weight 0 out of range 1..1000; left out"
              in bad["warnings"], str(bad["warnings"]))
        check("cpx damaged: two links left out", len(bad["links"]) == 1951, str(len(bad["links"])))


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
    sys.exit(main(*sys.argv[1:8]))
