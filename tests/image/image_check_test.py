#!/usr/bin/python3
"""`anygpu image check` end to end on images built here from small root file systems (real ELF
libraries from cc carrying .nv_fatbin / .hip_fatbin sections, make_images.py), in the three
storage forms, judged on fixture hosts (h100-8x: sm_90, driver 550; mi300x-8x: gfx942;
workstation-mixed: RTX 4090 sm_89 and RX 7900 gfx1100). Then every class of bad input: exit 2
and a message naming the layer and member; nothing is written to TMPDIR.

Usage: image_check_test.py ANYGPU TESTS_DIR
"""

import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import jsonschema

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_images as mk  # noqa: E402

failures = []
CUDA_REQUIRE = ("NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471 "
                "brand=tesla,driver>=535,driver<536")


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + str(detail)[:2000]))
    if not ok:
        failures.append(name)


class Runner:
    def __init__(self, binary, tests, scratch, caches):
        self.binary, self.tests, self.scratch, self.caches = binary, tests, scratch, caches
        self.schema = json.loads((tests.parent / "schemas" / "image-check.schema.json").read_text())

    def run(self, host, image, *extra, env=None):
        # A fresh cache for each run unless the test names one: what one image left there must
        # not answer for another test's damaged copy of it.
        env = dict(os.environ, TMPDIR=str(self.scratch),
                   ANYGPU_CACHE_DIR=tempfile.mkdtemp(dir=self.caches)) | (env or {})
        root = host if isinstance(host, Path) else self.tests / "hosts" / host
        return subprocess.run([self.binary, "--root", str(root),
                               "--no-libs", "image", "check", str(image), *extra],
                              capture_output=True, text=True, timeout=120, env=env)

    def doc(self, host, image, env=None):
        r = self.run(host, image, "--json", env=env)
        try:
            d = json.loads(r.stdout)
            jsonschema.validate(d, self.schema)
        except (json.JSONDecodeError, jsonschema.ValidationError) as e:
            check(f"schema {image} on {host}", False, f"{e}: {r.stdout} {r.stderr}")
            return r.returncode, None
        return r.returncode, d


def lib(work, name, **sections):
    path = Path(work) / name
    mk.shared_library(path, work, **sections)
    return path.read_bytes()


def verdicts(d):
    return {x["pci_bus_id"]: x["verdict"] for x in d["devices"]}


def codes(d, bus=None):
    return sorted({f["code"] for x in d["devices"] if bus in (None, x["pci_bus_id"])
                   for f in x["findings"]})


def build_cuda(work, flash_archs=((2, 80), (2, 90)), env=(CUDA_REQUIRE, "CUDA_VERSION=12.4.1")):
    torch_lib = lib(work, "libtorch_cuda.so",
                    fatbins=[mk.fatbin_container([(2, 80), (2, 90), (1, 90)])])
    flash = lib(work, "flash.so", fatbins=[mk.fatbin_container(list(flash_archs))])
    files = mk.torch_files("2.5.1+cu124", cuda="12.4")
    files[mk.SITE + "/torch/lib/libtorch_cuda.so"] = torch_lib
    base = mk.layer_tar({"etc/os-release": b"ID=debian\n"})
    top = mk.layer_tar({mk.SITE + "/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so": flash})
    return [base, mk.layer_tar(files), top], list(env)


def build_rocm(work, targets=("gfx90a:xnack-", "gfx942")):
    hip = lib(work, "libtorch_hip.so", bundles=[mk.offload_bundle(list(targets))])
    files = mk.torch_files("2.5.1+rocm6.2", hip="6.2.41133-dd7f95766")
    files[mk.SITE + "/torch/lib/libtorch_hip.so"] = hip
    return [mk.layer_tar(files)], []


def three_forms(work, name, layers, env):
    """The same image as docker-archive, OCI directory and OCI tar."""
    w = Path(work)
    docker = w / f"{name}-docker.tar"
    mk.docker_archive(docker, layers, env, tag=f"localhost/{name}:latest")
    oci = w / f"{name}-oci"
    mk.oci_layout(oci, layers, env, ref=name)
    oci_tar = w / f"{name}-oci.tar"
    mk.tar_directory(oci, oci_tar)
    return docker, oci, oci_tar


def good_images(r, work):
    layers, env = build_cuda(work)
    forms = three_forms(work, "cuda", layers, env)
    docs = []
    for form in forms:
        rc, d = r.doc("h100-8x", form)
        check(f"cuda image ok on h100 ({form.name})", rc == 0 and d and
              set(verdicts(d).values()) == {"ok"}, d)
        docs.append(d)
    if all(docs):
        strip = lambda d: ([(f["name"], f["version"], f["file"]) for f in d["frameworks"]],
                           [(c["file"], c["archs"]) for c in d["code_objects"]], d["image"]["id"],
                           verdicts(d))
        check("three storage forms agree", strip(docs[0]) == strip(docs[1]) == strip(docs[2]),
              [strip(d) for d in docs])
        d = docs[0]
        check("image ref from the archive", d["image"].get("ref") == "localhost/cuda:latest", d)
        check("torch framework read", d["frameworks"][0]["version"] == "2.5.1+cu124" and
              d["frameworks"][0]["cuda"] == "12.4", d["frameworks"])
        libs = {c["file"].rsplit("/", 1)[1]: c for c in d["code_objects"]}
        check("fatbin archs of libtorch_cuda", libs.get("libtorch_cuda.so", {}).get("archs") ==
              ["sm_80", "sm_90", "compute_90"], libs)
        check("layer named by diff_id", libs["libtorch_cuda.so"]["layer"] ==
              "sha256:" + mk.sha(layers[1]), libs["libtorch_cuda.so"]["layer"])

    rc, d = r.doc("mi300x-8x", forms[0])
    check("cuda image fails on mi300x (exit 1)", rc == 1 and d and
          set(verdicts(d).values()) == {"fail"} and codes(d) == ["torch.vendor-mismatch"], d)
    rc, d = r.doc("workstation-mixed", forms[1])
    check("cuda image on the mixed workstation: nvidia ok, amd fails", rc == 1 and d and
          verdicts(d) == {"0000:01:00.0": "ok", "0000:04:00.0": "fail"}, d)
    text = r.run("workstation-mixed", forms[1])
    check("text names the failing device", text.returncode == 1 and
          "fail  0000:04:00.0" in text.stdout and "torch.vendor-mismatch" in text.stdout,
          text.stdout + text.stderr)

    # An extension built for sm_90 only: the 4090 (sm_89) has no kernel image; the H100 runs it.
    layers, env = build_cuda(work, flash_archs=((2, 90),))
    docker, _, _ = three_forms(work, "flash90", layers, env)
    rc, d = r.doc("workstation-mixed", docker)
    f = [x for dev in (d or {}).get("devices", []) if dev["pci_bus_id"] == "0000:01:00.0"
         for x in dev["findings"] if x["code"] == "image.no-kernel-image"]
    check("sm_90-only extension fails on sm_89", rc == 1 and len(f) == 1 and
          "flash_attn_2_cuda" in f[0]["message"] and "sha256:" + mk.sha(layers[2]) in
          f[0]["evidence"], d)
    rc, d = r.doc("h100-8x", docker)
    check("sm_90-only extension runs on the H100", rc == 0, d)

    # The runtime's own gate: an image that requires CUDA 12.8 on driver 550 (CUDA 12.4).
    layers, _ = build_cuda(work)
    docker, _, _ = three_forms(work, "cuda128", layers, ["NVIDIA_REQUIRE_CUDA=cuda>=12.8"])
    rc, d = r.doc("h100-8x", docker)
    check("NVIDIA_REQUIRE_CUDA cuda>=12.8 refused on driver 550", rc == 1 and d and
          codes(d) == ["image.require-cuda"], d)

    rocm_layers, _ = build_rocm(work)
    docker, oci, _ = three_forms(work, "rocm", rocm_layers, [])
    rc, d = r.doc("mi300x-8x", oci)
    check("rocm image ok on mi300x", rc == 0 and d and set(verdicts(d).values()) == {"ok"}, d)
    rc, d = r.doc("workstation-mixed", docker)
    check("rocm image without gfx1100 fails on the RX 7900; wrong vendor on the 4090",
          rc == 1 and d and codes(d, "0000:04:00.0") == ["image.no-gfx-target"] and
          codes(d, "0000:01:00.0") == ["torch.vendor-mismatch"], d)
    rc, d = r.doc("h100-8x", docker)
    check("rocm image on the H100: wrong vendor", rc == 1 and codes(d) ==
          ["torch.vendor-mismatch"], d)
    # Compressed (CCOB, zlib) bundles are read too.
    hip = lib(work, "libccob.so", bundles=[mk.compressed_bundle(["gfx1100"])])
    docker, _, _ = three_forms(work, "ccob", [mk.layer_tar({"opt/k/libk.so": hip})], [])
    rc, d = r.doc("workstation-mixed", docker)
    check("CCOB bundle targets read", d and d["code_objects"] and
          d["code_objects"][0]["archs"] == ["gfx1100"], d)
    check("CCOB gfx1100 library fits the RX 7900, not the 4090", d and
          verdicts(d) == {"0000:01:00.0": "fail", "0000:04:00.0": "ok"}, d)

    ascend_images(r, work)

    # Nothing the checker knows: a warning, not ok.
    docker, _, _ = three_forms(work, "plain", [mk.layer_tar({"etc/hostname": b"x\n"})], [])
    rc, d = r.doc("h100-8x", docker)
    check("an image without GPU code is a warning", rc == 0 and d and
          set(verdicts(d).values()) == {"warning"} and codes(d) == ["image.no-gpu-code"], d)


def npu_layer(torch, npu=None, cann=None, cann_dir="latest/x86_64-linux"):
    """A CPU torch, torch_npu (version.py and dist-info) and optionally a CANN toolkit's
    ascend_toolkit_install.info (the file torch_npu's CANN version comes from)."""
    files = mk.torch_files(torch)
    if npu:
        files[mk.SITE + "/torch_npu/version.py"] = f"__version__ = '{npu}'\n".encode()
        files[mk.SITE + f"/torch_npu-{npu}.dist-info/METADATA"] = (
            f"Metadata-Version: 2.1\nName: torch-npu\nVersion: {npu}\n").encode()
    if cann:
        files[f"usr/local/Ascend/ascend-toolkit/{cann_dir}/ascend_toolkit_install.info"] = (
            f"package_name=Ascend-cann-toolkit\nversion={cann}\narch=x86_64\n").encode()
    return [mk.layer_tar(files)]


def ascend_host(r, work, driver):
    """ascend-910b-8x (CANN 8.0.RC2, driver 24.1.rc2) with another driver version.info."""
    root = Path(work) / f"ascend-{driver}"
    if not root.exists():
        shutil.copytree(r.tests / "hosts" / "ascend-910b-8x", root, symlinks=True)
        info = root / "usr/local/Ascend/driver/version.info"
        info.write_text(info.read_text().replace("Version=24.1.rc2", f"Version={driver}"))
    return root


def first(d, code):
    found = finding(d, code)
    return found[0] if found else None


def ascend_images(r, work):
    """torch_npu against the CANN it runs with (the image's own toolkit, else the host's CANN
    8.0.RC2) by the wheel table's pairs, the torch it was built for, and the image's CANN
    against the host's Ascend driver where CANN's release notes give the HDK releases."""
    host = "ascend-910b-8x"
    # Host CANN 8.0.RC2; torch_npu 2.3.1 pairs with torch 2.3.1 on CANN 8.0.RC2.
    docker, _, _ = three_forms(work, "npu-host", npu_layer("2.3.1", "2.3.1"), [])
    rc, d = r.doc(host, docker)
    check("torch_npu paired with the host's CANN: ok; torch_npu listed", rc == 0 and d and
          set(verdicts(d).values()) == {"ok"} and codes(d) == [] and
          ("torch_npu", "2.3.1") in {(f["name"], f["version"]) for f in d["frameworks"]}, d)
    # torch_npu 2.5.1 pairs with CANN 8.1.RC1: on the host's 8.0.RC2 it fails to import.
    docker, oci, oci_tar = three_forms(work, "npu-newer", npu_layer("2.5.1", "2.5.1"), [])
    for form in (docker, oci, oci_tar):
        rc, d = r.doc(host, form)
        f = first(d, "torch.plugin-cann-mismatch")
        check(f"torch_npu for CANN 8.1.RC1 on host CANN 8.0.RC2 fails ({form.name})",
              rc == 1 and d and set(verdicts(d).values()) == {"fail"} and
              codes(d) == ["torch.plugin-cann-mismatch"] and f and
              "not CANN 8.0.RC2" in f["message"] and
              "ascend_toolkit_install.info" in f["evidence"], d)
    # The image's own CANN is the one torch_npu loads: 2.4.0 pairs with 8.0.RC3, which the
    # image carries; whether CANN 8.0.RC3 runs on driver 24.1.rc2 is not in the table.
    docker, _, _ = three_forms(work, "npu-own",
                               npu_layer("2.4.0", "2.4.0", cann="8.0.RC3"), [])
    rc, d = r.doc(host, docker)
    f = first(d, "image.cann-driver-unjudged")
    check("own CANN 8.0.RC3 pairs with torch_npu 2.4.0; CANN vs driver not judged (warning)",
          rc == 0 and d and set(verdicts(d).values()) == {"warning"} and
          codes(d) == ["image.cann-driver-unjudged"] and f and
          "not judged" in f["message"] and
          {("torch", "2.4.0"), ("torch_npu", "2.4.0"), ("cann", "8.0.RC3")} <=
          {(x["name"], x["version"]) for x in d["frameworks"]}, d)
    # torch_npu 2.4.0.post2 pairs with CANN 8.0.0, not the image's 8.0.RC3; the fix names the
    # table's torch_npu for torch 2.4.0 on CANN 8.0.RC3, and the evidence the image's file.
    docker, _, _ = three_forms(work, "npu-own-bad",
                               npu_layer("2.4.0", "2.4.0.post2", cann="8.0.RC3"), [])
    rc, d = r.doc(host, docker)
    f = first(d, "torch.plugin-cann-mismatch")
    check("torch_npu 2.4.0.post2 on the image's CANN 8.0.RC3 fails, names the fix", rc == 1 and
          f and "torch-npu==2.4.0 " in f["action"] and "the image's /usr/local/Ascend" in
          f["evidence"] and "not CANN 8.0.RC3" in f["message"], d)
    # torch_npu built for another torch (torch 2.12.0 with torch_npu 2.8.0.post2).
    docker, _, _ = three_forms(work, "npu-torch", npu_layer("2.12.0", "2.8.0.post2"), [])
    rc, d = r.doc(host, docker)
    f = first(d, "torch.plugin-torch-mismatch")
    check("torch_npu for torch 2.8.0 under torch 2.12.0 fails", rc == 1 and f and
          "built for torch 2.8.0" in f["message"], d)
    # A torch_npu the table does not list: its pairing is unknown, a warning.
    docker, _, _ = three_forms(work, "npu-unlisted", npu_layer("2.13.0", "2.13.0"), [])
    rc, d = r.doc(host, docker)
    check("an unlisted torch_npu is a warning", rc == 0 and d and
          codes(d) == ["torch.plugin-unpaired"], d)
    # CANN 8.5.0 inside (its release notes list HDK 25.5/25.3/25.2/25.0) with torch_npu 2.9.0:
    # refused on driver 24.1.rc2, ok on 25.2.0.
    layers = npu_layer("2.9.0", "2.9.0", cann="8.5.0")
    docker, _, _ = three_forms(work, "npu-cann85", layers, [])
    rc, d = r.doc(host, docker)
    f = first(d, "image.cann-driver")
    check("image CANN 8.5.0 on Ascend driver 24.1.rc2 fails", rc == 1 and d and
          codes(d) == ["image.cann-driver"] and f and "24.1.rc2" in f["message"] and
          "25.5.X/25.3.X/25.2.X/25.0.X" in f["evidence"], d)
    rc, d = r.doc(ascend_host(r, work, "25.2.0"), docker)
    check("image CANN 8.5.0 on Ascend driver 25.2.0 is ok", rc == 0 and d and
          set(verdicts(d).values()) == {"ok"} and codes(d) == [], d)
    # Without torch_npu: the plugin is missing (a warning).
    docker, _, _ = three_forms(work, "nonpu", npu_layer("2.4.0", cann="8.0.RC3"), [])
    rc, d = r.doc(host, docker)
    check("a CPU torch without torch_npu on the Ascend host: plugin missing (warning)",
          rc == 0 and d and "torch.plugin-missing" in codes(d) and
          set(verdicts(d).values()) == {"warning"}, d)


def compat_layer(work, name, note, lib_dir="usr/local/cuda-12.9/compat"):
    path = Path(work) / name
    mk.compat_library(path, work, note)
    return mk.layer_tar({f"{lib_dir}/{name}": path.read_bytes()})


def finding(d, code, bus=None):
    return [f for x in (d or {}).get("devices", []) if bus in (None, x["pci_bus_id"])
            for f in x["findings"] if f["code"] == code]


def cuda_compat(r, work):
    """cuda-compat (a newer driver's libcuda.so in /usr/local/cuda-X.Y/compat) judged per GPU:
    used only where the host driver's major is older; then it works only on data-center GPUs
    and on the branches its .note.cuda.fwd_compatibility admits, else error 804."""
    layers, env = build_cuda(work)
    note575 = mk.compat_note()  # CUDA 12.9, branches 535 550 560 565 570 575
    forms = three_forms(work, "compat", layers + [compat_layer(work, "libcuda.so.575.57.08",
                                                               note575)], env)
    for form in forms:
        rc, d = r.doc("h100-8x", form)
        info = finding(d, "image.cuda-compat")
        check(f"compat 575 on the H100 with driver 550: forward compatibility works ({form.name})",
              rc == 0 and d and set(verdicts(d).values()) == {"ok"} and len(info) == 8 and
              "CUDA 12.9 on driver 550.90.07" in info[0]["message"], d and codes(d))
    rc, d = r.doc("h100-8x", forms[0])
    check("compat library listed with its note", d and d.get("cuda_compat") == [{
        "file": "/usr/local/cuda-12.9/compat/libcuda.so.575.57.08",
        "layer": d["cuda_compat"][0]["layer"], "driver_version": "575.57.08",
        "cuda_version": "12.9", "drivers": [535, 550, 560, 565, 570, 575]}],
        d and d.get("cuda_compat"))
    check("compat library is no code object", d and all(
        "compat" not in c["file"] for c in d["code_objects"]), d and d["code_objects"])
    rc, d = r.doc("workstation-mixed", forms[1])
    err = finding(d, "image.cuda-compat-unsupported", "0000:01:00.0")
    check("compat on the GeForce RTX 4090: error 804, with the fix", rc == 1 and len(err) == 1 and
          "error 804" in err[0]["message"] and "consumer card" in err[0]["evidence"] and
          "branch 575 or newer" in err[0]["action"] and
          "libcuda.so.575.57.08" in err[0]["evidence"], d)
    text = r.run("workstation-mixed", forms[0])
    check("text: the compat library and the 804 finding", text.returncode == 1 and
          "compat    /usr/local/cuda-12.9/compat/libcuda.so.575.57.08: driver 575.57.08, CUDA "
          "12.9, admits driver branches 535 550 560 565 570 575" in text.stdout and
          "image.cuda-compat-unsupported" in text.stdout, text.stdout + text.stderr)

    # A note that does not admit the host's branch (550): error 804 on the data-center GPU too.
    narrow = mk.compat_note(cuda="13.0", drivers=(535, 570, 580))
    docker, _, _ = three_forms(work, "compat-narrow", layers + [compat_layer(
        work, "libcuda.so.580.65.06", narrow, "usr/local/cuda-13.0/compat")], env)
    rc, d = r.doc("h100-8x", docker)
    err = finding(d, "image.cuda-compat-branch")
    check("compat note without branch 550: error on the H100", rc == 1 and len(err) == 8 and
          "driver branch 550" in err[0]["message"] and "535 570 580" in err[0]["evidence"], d)

    # The torch judge with cuda-compat: a CUDA 13.0 torch needs driver >= 580; the image's
    # compat libcuda.so.580.65.06 admitting branch 550 provides it on the H100 (data-center),
    # so the torch is not refused for the host's driver floor. Without the compat library it
    # is; on the GeForce the compat library is error 804.
    cu130 = mk.torch_files("2.9.0+cu130", cuda="13.0")
    wide = mk.compat_note(cuda="13.0", drivers=(535, 550, 570, 575, 580))
    with_compat = [mk.layer_tar(cu130), compat_layer(work, "libcuda.so.580.65.06", wide,
                                                     "usr/local/cuda-13.0/compat")]
    docker, _, _ = three_forms(work, "torch-compat", with_compat, [])
    rc, d = r.doc("h100-8x", docker)
    info = finding(d, "image.cuda-compat")
    check("cu130 torch with cuda-compat 580 on the H100 (driver 550): not refused for the floor",
          rc == 0 and d and set(verdicts(d).values()) == {"ok"} and
          "torch.cuda-too-new" not in codes(d) and len(info) == 8 and
          "CUDA 13.0 on driver 550.90.07" in info[0]["message"], d and codes(d))
    docker, _, _ = three_forms(work, "torch-nocompat", with_compat[:1], [])
    rc, d = r.doc("h100-8x", docker)
    check("the same torch without cuda-compat is refused for the driver floor", rc == 1 and
          d and codes(d) == ["torch.cuda-too-new"], d and codes(d))
    rc, d = r.doc("workstation-mixed", docker.parent / "torch-compat-docker.tar")
    check("cu130 torch with cuda-compat on the GeForce: error 804 (and the floor)", rc == 1 and
          d and {"image.cuda-compat-unsupported", "torch.cuda-too-new"} <=
          set(codes(d, "0000:01:00.0")), d and codes(d))

    # Older than the host's driver: the runtime leaves it out; nothing to say.
    docker, _, _ = three_forms(work, "compat-old", layers + [compat_layer(
        work, "libcuda.so.535.183.06", mk.compat_note(cuda="12.2", drivers=(470, 525, 535)),
        "usr/local/cuda-12.2/compat")], env)
    rc, d = r.doc("workstation-mixed", docker)
    check("a compat library older than the host driver is not used (even on the 4090)",
          rc == 1 and d and not [c for c in codes(d) if c.startswith("image.cuda-compat")] and
          verdicts(d)["0000:01:00.0"] == "ok", d and codes(d))

    # No note (older packages) and a note that is not JSON: a warning on the H100, not ok.
    for name, note, needle in [("compat-nonote", None, "is absent"),
                               ("compat-badjson", mk.compat_note(desc=b"{not json"),
                                "could not be read: .note.cuda.fwd_compatibility: note "
                                "description is not a JSON object")]:
        docker, _, _ = three_forms(work, name, layers + [compat_layer(
            work, "libcuda.so.575.57.08", note)], env)
        rc, d = r.doc("h100-8x", docker)
        warn = finding(d, "image.cuda-compat-unknown")
        check(f"compat {name}: cannot tell, a warning", rc == 0 and d and
              set(verdicts(d).values()) == {"warning"} and len(warn) == 8 and
              needle in warn[0]["evidence"], d)
    # The compat library deleted by an upper layer is gone.
    gone = mk.layer_tar({}, whiteouts=["usr/local/cuda-12.9/compat/libcuda.so.575.57.08"])
    docker, _, _ = three_forms(work, "compat-gone", layers + [compat_layer(
        work, "libcuda.so.575.57.08", note575), gone], env)
    rc, d = r.doc("workstation-mixed", docker)
    check("a whited-out compat library is not judged", d and "cuda_compat" not in d and
          verdicts(d)["0000:01:00.0"] == "ok", d)


def partitions(r, work):
    """Partitioned devices judged per partition a run could get: MIG instances with the parent's
    compute capability, MI300X CPX partitions with the parent's gfx target."""
    layers, env = build_cuda(work)
    docker, _, _ = three_forms(work, "mig", layers, env)
    rc, d = r.doc("h100-8x-mig", docker)
    parted = [x for x in (d or {}).get("devices", []) if x.get("partitions")]
    check("MIG: the 7, 3 and 1 instances of three H100s each judged ok (sm_90 of the parent)",
          rc == 0 and [len(x["partitions"]) for x in parted] == [7, 3, 1] and all(
              p["verdict"] == "ok" and p["id"].startswith(x["pci_bus_id"] + "/")
              for x in parted for p in x["partitions"]),
          d and [(x["pci_bus_id"], x.get("partitions")) for x in d["devices"]])
    # An extension with sm_80 cubins only: every instance fails as its parent does.
    layers, env = build_cuda(work, flash_archs=((2, 80),))
    docker, _, _ = three_forms(work, "mig80", layers, env)
    rc, d = r.doc("h100-8x-mig", docker)
    parted = [x for x in (d or {}).get("devices", []) if x.get("partitions")]
    check("MIG: an sm_80-only extension fails on every instance", rc == 1 and parted and all(
        x["verdict"] == "fail" and all(
            [f["code"] for f in p["findings"]] == ["image.no-kernel-image"]
            for p in x["partitions"]) for x in parted), d and codes(d))
    rocm_layers, _ = build_rocm(work, targets=("gfx90a",))
    docker, _, _ = three_forms(work, "cpx", rocm_layers, [])
    rc, d = r.doc("mi300x-8x-cpx", docker)
    parted = [x for x in (d or {}).get("devices", []) if x.get("partitions")]
    check("CPX: each partition of every MI300X (8 of them, 63 partitions) fails with the "
          "parent's gfx942", rc == 1 and len(parted) == 8 and
          sum(len(x["partitions"]) for x in parted) == 63 and all(
              x["verdict"] == "fail" and
              all(p["verdict"] == "fail" and [f["code"] for f in p["findings"]] ==
                  ["image.no-gfx-target"] and "gfx942" in p["findings"][0]["message"]
                  for p in x["partitions"]) for x in parted), d)
    rocm_layers, _ = build_rocm(work)
    docker, _, _ = three_forms(work, "cpx-ok", rocm_layers, [])
    rc, d = r.doc("mi300x-8x-cpx", docker)
    check("CPX: a gfx942 image is ok on every partition", rc == 0 and d and all(
        p["verdict"] == "ok" for x in d["devices"] for p in x.get("partitions", [])), d)
    text = r.run("mi300x-8x-cpx", docker)
    check("text lists the partitions", "    partition 0000:05:00.0/0" in text.stdout,
          text.stdout[:2000])


def reserved_block(b):
    """The zstd frame `b` with its first block's type set to 3 (reserved, RFC 8878 3.1.1.2):
    damage the decoder itself finds, not only the tar reader after it."""
    fhd = b[4]
    single = fhd & 0x20
    header = 5 + (0 if single else 1) + (0, 1, 2, 4)[fhd & 3] + \
        ((1 if single else 0), 2, 4, 8)[fhd >> 6]
    return b[:header] + bytes([b[header] | 0x06]) + b[header + 1:]


def zstd_images(r, work):
    """Layers compressed by the `zstd` command (OCI tar+zstd, one frame and several, as
    zstd:chunked writes them) and zstd CCOB offload bundles (versions 2 and 3)."""
    layers, env = build_cuda(work)
    docs = []
    for frames in (1, 3):
        oci = Path(work) / f"zstd-{frames}"
        mk.oci_layout(oci, layers, env, ref="zstd", zstd_frames=frames)
        rc, d = r.doc("h100-8x", oci)
        docs.append(d)
        libs = {c["file"].rsplit("/", 1)[1]: c["archs"] for c in (d or {}).get("code_objects", [])}
        check(f"tar+zstd layers ({frames} frame(s)) read: ok on h100, archs", rc == 0 and d and
              set(verdicts(d).values()) == {"ok"} and
              libs.get("libtorch_cuda.so") == ["sm_80", "sm_90", "compute_90"], (rc, d))
    for version in (2, 3):
        hip = lib(work, f"libzccob{version}.so",
                  bundles=[mk.compressed_bundle(["gfx1100", "gfx942"], "zstd", version)])
        docker, _, _ = three_forms(work, f"zccob{version}",
                                   [mk.layer_tar({"opt/k/libk.so": hip})], [])
        rc, d = r.doc("workstation-mixed", docker)
        check(f"zstd CCOB v{version} bundle targets read", d and d["code_objects"] and
              d["code_objects"][0]["archs"] == ["gfx1100", "gfx942"] and
              "unread_bundles" not in d["code_objects"][0], d and d["code_objects"])
    # Damage: a zstd layer cut short, and one with bytes changed (blob renamed to match).
    for name, damage, needle in [("truncated zstd", lambda b: b[:len(b) // 2],
                                  "truncated zstd stream"),
                                 ("corrupt zstd", reserved_block, "corrupt zstd stream (")]:
        big = mk.layer_tar({"usr/lib/data.bin": os.urandom(100000) + bytes(200000)})
        oci = Path(work) / f"bad-{name.replace(' ', '-')}"
        mk.oci_layout(oci, [big], [], zstd_frames=1)
        blobs = oci / "blobs" / "sha256"
        blob = next(p for p in blobs.iterdir() if p.read_bytes()[:4] == b"\x28\xb5\x2f\xfd")
        bad = damage(blob.read_bytes())
        blob.unlink()
        (blobs / mk.sha(bad)).write_bytes(bad)
        index = json.loads((oci / "index.json").read_text())
        mpath = blobs / index["manifests"][0]["digest"][7:]
        manifest = json.loads(mpath.read_text())
        manifest["layers"][0]["digest"] = "sha256:" + mk.sha(bad)
        mtext = json.dumps(manifest).encode()
        mpath.unlink()
        (blobs / mk.sha(mtext)).write_bytes(mtext)
        index["manifests"][0]["digest"] = "sha256:" + mk.sha(mtext)
        (oci / "index.json").write_text(json.dumps(index))
        expect_bad(r, name, oci, f"layer 1 (sha256:{mk.sha(bad)})", needle)


def whiteouts(r, work):
    sm50 = lib(work, "old.so", fatbins=[mk.fatbin_container([(2, 50)])])
    sm90 = lib(work, "new.so", fatbins=[mk.fatbin_container([(2, 90)])])
    plain = lib(work, "plain.so")
    lower = mk.layer_tar({"opt/a/liba.so": sm50, "opt/b/libb.so": sm50, "opt/c/libc1.so": sm50,
                          "opt/d/libd.so": sm50})
    upper = mk.layer_tar({"opt/b/new.so": sm90, "opt/c/libc1.so": plain},
                         whiteouts=["opt/a/liba.so", "opt/d"], opaque=["opt/b"])
    docker, oci, _ = three_forms(work, "wh", [lower, upper], [])
    for form in (docker, oci):
        rc, d = r.doc("h100-8x", form)
        files = sorted(c["file"] for c in (d or {}).get("code_objects", []))
        check(f"whiteouts, opaque dirs and replaced files applied ({form.name})",
              files == ["/opt/b/new.so"], files)


def docker_store(r, work):
    """Docker's classic overlay2 store read by reference without a daemon: the familiar and the
    fully qualified name and an id prefix find it, a whiteout in the upper layer deletes a
    library, and a damaged store is bad input naming the file. containers-storage is pointed at
    an empty store so only Docker's can answer."""
    w = Path(work)
    root = w / "docker-root"
    layers, env = build_cuda(work)
    sm50 = lib(work, "old50.so", fatbins=[mk.fatbin_container([(2, 50)])])
    layers[0] = mk.layer_tar({"etc/os-release": b"ID=debian\n", "opt/old/libold.so": sm50})
    layers.append(mk.layer_tar({}, whiteouts=["opt/old/libold.so"]))
    image_id = mk.docker_store(root, layers, env, tag="anygpu-cuda:v1")
    (w / "storage.conf").write_text(f'[storage]\ngraphroot = "{w / "empty-graph"}"\n')
    store = {"ANYGPU_DOCKER_ROOT": str(root), "CONTAINERS_STORAGE_CONF": str(w / "storage.conf")}
    for ref in ("anygpu-cuda:v1", "docker.io/library/anygpu-cuda:v1", image_id[:12]):
        rc, d = r.doc("h100-8x", ref, env=store)
        files = sorted(c["file"].rsplit("/", 1)[-1] for c in (d or {}).get("code_objects", []))
        check(f"Docker store by reference {ref}: ok on h100, whiteout applied",
              rc == 0 and d and d["image"]["id"] == "sha256:" + image_id and
              files == ["flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so", "libtorch_cuda.so"],
              (rc, d and d["image"], files))
    rc, d = r.doc("mi300x-8x", "anygpu-cuda:v1", env=store)
    check("Docker store image fails on mi300x (exit 1)", rc == 1 and d and
          "torch.vendor-mismatch" in codes(d), d and codes(d))
    res = r.run("h100-8x", "anygpu-cuda:v2", env=store)
    check("an image in neither store is bad input naming both",
          res.returncode == 2 and "containers-storage (" in res.stderr and
          f"the Docker store ({root})" in res.stderr, res.stderr)
    res = r.run("h100-8x", "anygpu-cuda:v1", env=dict(store, ANYGPU_DOCKER_ROOT=str(w / "nope")))
    check("ANYGPU_DOCKER_ROOT naming no directory is refused", res.returncode == 2 and
          "ANYGPU_DOCKER_ROOT" in res.stderr, res.stderr)
    # Damage, one file at a time, each named.
    images = root / "image" / "overlay2"
    config = images / "imagedb" / "content" / "sha256" / image_id
    saved = config.read_bytes()
    config.write_bytes(saved + b" ")
    res = r.run("h100-8x", "anygpu-cuda:v1", env=store)
    check("Docker store: a config not matching its id", res.returncode == 2 and
          f"{config}: content digest" in res.stderr, res.stderr)
    config.write_bytes(saved)
    first = json.loads(saved)["rootfs"]["diff_ids"][0][7:]
    diff = images / "layerdb" / "sha256" / first / "diff"
    diff.write_text("sha256:" + "0" * 64)
    res = r.run("h100-8x", "anygpu-cuda:v1", env=store)
    check("Docker store: a layer whose recorded diff is not the config's",
          res.returncode == 2 and f"{diff}: sha256:000" in res.stderr, res.stderr)
    diff.write_text(json.loads(saved)["rootfs"]["diff_ids"][0])
    cache = images / "layerdb" / "sha256" / first / "cache-id"
    good_cache = cache.read_text()
    cache.write_text("../../etc")
    res = r.run("h100-8x", "anygpu-cuda:v1", env=store)
    check("Docker store: a cache-id that is not a hex id", res.returncode == 2 and
          "cache-id: expected" in res.stderr, res.stderr)
    cache.write_text(good_cache)
    repos = images / "repositories.json"
    repos.write_text('{"Repositories": {"anygpu-cuda": {"anygpu-cuda:v1": "sha256:xyz"}}}')
    res = r.run("h100-8x", "anygpu-cuda:v1", env=store)
    check("Docker store: a malformed reference entry", res.returncode == 2 and
          "repositories.json: anygpu-cuda:v1: expected sha256:" in res.stderr, res.stderr)
    repos.write_text("[")
    res = r.run("h100-8x", "anygpu-cuda:v1", env=store)
    check("Docker store: repositories.json not JSON", res.returncode == 2 and
          "repositories.json: not valid JSON" in res.stderr, res.stderr)


def same_facts(a, b):
    """Two cache entries hold the same facts (layers are named by the form they were read in:
    an OCI layout's blob digests, a save archive's diff_ids)."""
    a, b = json.loads(a), json.loads(b)
    return len(a.pop("layers")) == len(b.pop("layers")) and a == b


def facts_cache(r, work):
    """What an image holds is kept by image id: a second check reads its config and no layer
    (-v says so, and it still answers with the layer blobs removed), a changed host is judged
    afresh from the kept facts, and a damaged, foreign or planted entry is never trusted."""
    w = Path(work)
    cache = w / "facts-cache"
    cache.mkdir()
    env = {"ANYGPU_CACHE_DIR": str(cache)}
    layers, cfg = build_cuda(work, flash_archs=((2, 90),))
    docker, oci, _ = three_forms(work, "cached", layers, cfg)
    first = r.run("h100-8x", oci, "--json", "-v", env=env)
    entries = sorted(p.name for p in (cache / "images").iterdir())
    check("first check reads every layer and keeps the facts (mode 0600)",
          first.returncode == 0 and "3 of 3 layer(s) read, facts kept in" in first.stderr and
          len(entries) == 1 and entries[0].startswith("sha256-") and
          (cache / "images" / entries[0]).stat().st_mode & 0o777 == 0o600,
          (first.returncode, first.stderr, entries))
    entry = cache / "images" / entries[0]
    second = r.run("h100-8x", oci, "--json", "-v", env=env)
    check("second check reads no layer and answers the same",
          second.returncode == 0 and "facts from the cache" in second.stderr and
          "no layer read" in second.stderr and "layer(s) read" not in second.stderr and
          json.loads(second.stdout) == json.loads(first.stdout), second.stderr)
    # The layer blobs gone: only the cache can answer (and --no-cache cannot).
    for blob in (oci / "blobs" / "sha256").iterdir():
        if blob.read_bytes()[:2] == b"\x1f\x8b":
            blob.unlink()
    gone = r.run("h100-8x", oci, "--json", env=env)
    check("with the layer blobs removed the cached facts answer",
          gone.returncode == 0 and json.loads(gone.stdout) == json.loads(first.stdout),
          (gone.returncode, gone.stderr))
    res = r.run("h100-8x", oci, "--no-cache", env=env)
    check("--no-cache reads the layers (missing here: bad input)", res.returncode == 2, res.stderr)
    # Another host: judged afresh from the kept facts (the 4090 is sm_89; flash has sm_90 only).
    rc, d = r.doc("workstation-mixed", oci, env=env)
    check("a changed host is judged afresh from the cache, no layer read", rc == 1 and d and
          codes(d, "0000:01:00.0") == ["image.no-kernel-image"], d)
    # The same image as a docker archive has the same id: its layers are not read either.
    res = r.run("h100-8x", docker, "--json", "-v", env=env)
    fresh = r.run("h100-8x", docker, "--json", "--no-cache")
    check("the same id in another storage form hits the cache, named as that form names it",
          res.returncode == 0 and "no layer read" in res.stderr and
          json.loads(res.stdout) == json.loads(fresh.stdout) and
          json.loads(res.stdout) != json.loads(first.stdout), res.stderr)

    # A damaged entry: set aside with a warning, the layers read, a good entry written again.
    good = entry.read_bytes()
    entry.write_bytes(good[: len(good) // 2])
    res = r.run("h100-8x", docker, "-v", env=env)
    aside = [p.name for p in (cache / "images").iterdir() if ".corrupt-" in p.name]
    check("a truncated entry is set aside with a warning and the layers are read",
          res.returncode == 0 and "is corrupt (not JSON); not trusted, set aside as" in res.stderr
          and "3 of 3 layer(s) read" in res.stderr and len(aside) == 1 and
          same_facts(entry.read_bytes(), good), res.stderr)
    # An entry that parses but lies: a file path climbing out, a layer index out of range,
    # another image's id, a kept text over the read's limit.
    doc = json.loads(good)
    lies = {"climbing path": lambda d: d["files"][0].update(path="../../etc/passwd"),
            "layer out of range": lambda d: d["files"][0].update(layer=99),
            "another image's id": lambda d: d.update(id="sha256:" + "0" * 64),
            "wrong type": lambda d: d["files"][0].update(library="yes"),
            "text over the limit": lambda d: d["files"][0].update(text="x" * (65 << 10))}
    for name, lie in lies.items():
        bad = json.loads(good)
        lie(bad)
        entry.write_text(json.dumps(bad))
        res = r.run("h100-8x", docker, "-v", env=env)
        check(f"an entry with {name} is not trusted", res.returncode == 0 and
              "is corrupt" in res.stderr and "3 of 3 layer(s) read" in res.stderr and
              same_facts(entry.read_bytes(), good), res.stderr)
    # A link planted at the entry is not followed (neither read nor written through).
    target = w / "planted-target"
    target.write_text(json.dumps(doc))
    entry.unlink()
    entry.symlink_to(target)
    res = r.run("h100-8x", docker, "-v", env=env)
    check("a link at the entry is not trusted nor written through",
          res.returncode == 0 and "is corrupt" in res.stderr and not entry.is_symlink() and
          target.read_text() == json.dumps(doc), res.stderr)
    # images/ itself a link elsewhere: nothing is read from or written there.
    elsewhere = w / "cache-elsewhere"
    elsewhere.mkdir()
    linked = w / "linked-cache"
    linked.mkdir()
    (linked / "images").symlink_to(elsewhere)
    res = r.run("h100-8x", docker, "-v", env={"ANYGPU_CACHE_DIR": str(linked)})
    check("a linked images/ directory is refused: a warning, nothing written there",
          res.returncode == 0 and "image cache: not kept" in res.stderr and
          "refusing to write through" in res.stderr and list(elsewhere.iterdir()) == [],
          res.stderr)
    res = r.run("h100-8x", docker, env={"ANYGPU_CACHE_DIR": str(w / "no-such-dir")})
    check("ANYGPU_CACHE_DIR naming no directory is refused (exit 2, named)",
          res.returncode == 2 and "ANYGPU_CACHE_DIR" in res.stderr, res.stderr)
    # Without ANYGPU_CACHE_DIR the cache is beneath XDG_CACHE_HOME (not as root).
    if os.geteuid() != 0:
        xdg = w / "xdg-cache"
        res = r.run("h100-8x", docker, "-v", env={"ANYGPU_CACHE_DIR": "",
                                                 "XDG_CACHE_HOME": str(xdg)})
        check("the cache is beneath XDG_CACHE_HOME", res.returncode == 0 and
              len(list((xdg / "anygpu" / "images").iterdir())) == 1, res.stderr)


def expect_bad(r, name, image, *needles):
    res = r.run("h100-8x", image)
    ok = res.returncode == 2 and all(n in res.stderr for n in needles) and res.stdout == ""
    check("bad input: " + name, ok, f"rc={res.returncode} stderr={res.stderr!r}")


def raw_member_layer(name, data=b"x", kind=tarfile.REGTYPE, link="", size=None):
    ti = tarfile.TarInfo("placeholder")
    ti.type, ti.linkname, ti.size = kind, link, len(data) if size is None else size
    block = bytearray(ti.tobuf(format=tarfile.GNU_FORMAT))
    block[0:100] = name.encode().ljust(100, b"\0")
    block[148:156] = b" " * 8
    block[148:155] = ("%06o\0" % sum(block)).encode()
    body = data + b"\0" * ((512 - len(data) % 512) % 512) if size is None else b""
    return bytes(block) + body + b"\0" * 1024


def bad_inputs(r, work):
    w = Path(work)
    good = mk.layer_tar({"usr/lib/libx.so": b"\x7fELF"})
    cases = {
        "climbing member": (raw_member_layer("usr/../../etc/cron.d/x"),
                            ["member 'usr/../../etc/cron.d/x' climbs out of the root"]),
        "absolute member": (raw_member_layer("/etc/passwd"),
                            ["member '/etc/passwd' has an absolute path"]),
        "escaping symlink": (raw_member_layer("usr/lib/evil", b"", tarfile.SYMTYPE,
                                              "../../../../etc/shadow"),
                             ["symlink 'usr/lib/evil' -> '../../../../etc/shadow' leaves"]),
        "terabyte claim": (raw_member_layer("usr/lib/big.so", size=5 << 40),
                           ["member 'usr/lib/big.so' claims 5497558138880 bytes"]),
    }
    for name, (layer, needles) in cases.items():
        img = w / f"bad-{name.replace(' ', '-')}.tar"
        mk.docker_archive(img, [good, layer], [])
        expect_bad(r, name, img, f"layer 2 (sha256:{mk.sha(layer)})", *needles)

    # A corrupt tar header (checksum) in an uncompressed layer.
    broken = bytearray(good)
    broken[0] ^= 0x01
    img = w / "bad-checksum.tar"
    mk.docker_archive(img, [bytes(broken)], [])
    expect_bad(r, "tar checksum", img, f"layer 1 (sha256:{mk.sha(bytes(broken))})",
               "bad tar header checksum")

    # A gzip layer cut short, and one corrupted, in OCI layouts (blobs renamed to match).
    for name, damage, needle in [("truncated gzip", lambda b: b[:len(b) // 2],
                                  "truncated gzip stream"),
                                 ("corrupt gzip", lambda b: b[:20] + bytes(x ^ 0x5a for x in
                                                                          b[20:40]) + b[40:],
                                  "corrupt gzip stream")]:
        big = mk.layer_tar({"usr/lib/data.bin": os.urandom(200000)})
        oci = w / f"bad-{name.replace(' ', '-')}"
        mk.oci_layout(oci, [big], [])
        blob = gzip.compress(big, mtime=0)
        bad = damage(blob)
        (oci / "blobs" / "sha256" / mk.sha(blob)).unlink()
        (oci / "blobs" / "sha256" / mk.sha(bad)).write_bytes(bad)
        index = json.loads((oci / "index.json").read_text())
        mpath = oci / "blobs" / "sha256" / index["manifests"][0]["digest"][7:]
        manifest = json.loads(mpath.read_text())
        manifest["layers"][0]["digest"] = "sha256:" + mk.sha(bad)
        mtext = json.dumps(manifest).encode()
        mpath.unlink()
        (oci / "blobs" / "sha256" / mk.sha(mtext)).write_bytes(mtext)
        index["manifests"][0]["digest"] = "sha256:" + mk.sha(mtext)
        (oci / "index.json").write_text(json.dumps(index))
        expect_bad(r, name, oci, f"layer 1 (sha256:{mk.sha(bad)})", needle)

    # A blob whose bytes no longer match its digest (same size, one byte changed).
    oci = w / "bad-digest"
    mk.oci_layout(oci, [good], [])
    blob = next(p for p in (oci / "blobs" / "sha256").iterdir()
                if p.read_bytes()[:2] == b"\x1f\x8b")
    data = bytearray(gzip.decompress(blob.read_bytes()))
    data[data.index(b"\x7fELF") + 1] ^= 0x01  # inside the member's data: the tar still reads
    blob.write_bytes(gzip.compress(bytes(data), mtime=0))
    expect_bad(r, "blob digest mismatch", oci, f"layer 1 (sha256:{blob.name})",
               "not the sha256:" + blob.name)

    # A layer tar whose content differs from the config's diff_id.
    img = w / "bad-diffid.tar"
    mk.docker_archive(img, [good], [])
    with tarfile.open(img) as t:
        names = t.getnames()
        members = {n: t.extractfile(n).read() for n in names}
    layer_name = next(n for n in names if n.endswith(mk.sha(good)))
    at = good.index(b"\x7fELF") + 1
    members[layer_name] = good[:at] + bytes([good[at] ^ 1]) + good[at + 1:]
    with tarfile.open(img, "w") as t:
        for n in names:
            ti = tarfile.TarInfo(n)
            ti.size = len(members[n])
            t.addfile(ti, io.BytesIO(members[n]))
    expect_bad(r, "layer digest mismatch", img, "layer 1 (sha256:" + mk.sha(good),
               "not the sha256:" + mk.sha(good))

    # The config's bytes no longer match its name.
    oci = w / "bad-config"
    mk.oci_layout(oci, [good], ["A=1"])
    for p in (oci / "blobs" / "sha256").iterdir():
        if b'"rootfs"' in p.read_bytes():
            p.write_bytes(p.read_bytes().replace(b"A=1", b"A=2"))
            cfg = p.name
    expect_bad(r, "config digest mismatch", oci, cfg, "does not match its name")

    # A layout whose blob is a symbolic link (to a file outside it).
    oci = w / "bad-symlink-blob"
    mk.oci_layout(oci, [good], [])
    blob = next(p for p in (oci / "blobs" / "sha256").iterdir()
                if p.read_bytes()[:2] == b"\x1f\x8b")
    outside = w / "outside-blob"
    outside.write_bytes(blob.read_bytes())
    blob.unlink()
    blob.symlink_to(outside)
    expect_bad(r, "symlinked blob", oci, f"blobs/sha256/{blob.name} is a symbolic link")

    # The outer archive cut short, an empty file, a directory that is no layout.
    whole = w / "cuda-docker.tar"
    cut = w / "bad-cut.tar"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    expect_bad(r, "truncated archive", cut, str(cut))
    (w / "empty.tar").write_bytes(b"")
    expect_bad(r, "empty file", w / "empty.tar", "empty.tar")
    (w / "notalayout").mkdir()
    expect_bad(r, "directory without a layout", w / "notalayout",
               "neither a docker/podman save archive")
    expect_bad(r, "missing path", w / "nope.tar", "nope.tar: no such image")


def main(binary, tests):
    tests = Path(tests).resolve()
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as scratch, \
            tempfile.TemporaryDirectory() as caches:
        r = Runner(binary, tests, Path(scratch), caches)
        good_images(r, work)
        cuda_compat(r, work)
        partitions(r, work)
        zstd_images(r, work)
        whiteouts(r, work)
        docker_store(r, work)
        facts_cache(r, work)
        bad_inputs(r, work)
        left = list(Path(scratch).iterdir())
        check("nothing written to TMPDIR", left == [], left)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
