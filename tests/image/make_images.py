#!/usr/bin/python3
"""Builds container images for `anygpu image check` tests from small root file systems, in the
storage forms anygpu reads: a `docker save`-style archive (manifest.json, uncompressed layers
named by digest), an OCI layout directory and an OCI layout tar (tar+gzip layers).

Shared libraries are real ELF objects compiled with cc, carrying GPU code made to the public
layouts: a `.nv_fatbin` section of fat binary containers (magic 0xBA55ED50, 16-byte header,
64-byte entry headers with kind at 0, header size at 4, payload size at 8 and sm_version at
0x1C: ZLUDA dark_api.rs, nvopen-tools FORMAT_SPECIFICATION.md), and a `.hip_fatbin` section of
clang offload bundles (`__CLANG_OFFLOAD_BUNDLE__`, entry {offset, size, id length, id}; clang's
ClangOffloadBundler.rst), optionally wrapped as a zlib `CCOB` v2 bundle.
"""

import gzip
import hashlib
import io
import json
import os
import stat
import struct
import subprocess
import tarfile
import zlib
from pathlib import Path


# Entry flags (u64 at 0x28) as nvcc 13.0 writes them: 0x11 = 64-bit, Linux; arch-specific
# targets (sm_90a) add 0x100000, family-specific ones (sm_100f) 0x200000.
VARIANT_FLAGS = {"": 0x11, "a": 0x100011, "f": 0x200011}


def fatbin_container(entries):
    """entries: [(kind 1=PTX 2=ELF, sm) or (kind, sm, "a"|"f")]; payloads are filler bytes."""
    body = b""
    for kind, sm, *variant in entries:
        payload = bytes([sm & 0xFF]) * 24
        header = struct.pack("<HHIIIIIII", kind, 0x101, 64, len(payload), 0, 0, 0, 0, sm)
        header += struct.pack("<IIQ", 64, 0, VARIANT_FLAGS[variant[0] if variant else ""])
        header = header.ljust(64, b"\0")
        body += header + payload
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


def offload_bundle(targets):
    """A clang offload bundle: the host entry, then one hipv4 entry per target id."""
    ids = [b"host-x86_64-unknown-linux-gnu-"] + [
        ("hipv4-amdgcn-amd-amdhsa--" + t).encode() for t in targets]
    header_len = 24 + 8 + sum(24 + len(i) for i in ids)
    objects, entries, offset = b"", b"", header_len
    for i in ids:
        code = b"" if i.startswith(b"host") else b"\x7fELF" + i[-8:]
        entries += struct.pack("<QQQ", offset, len(code), len(i)) + i
        objects += code
        offset += len(code)
    return b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(ids)) + entries + objects


def zstd_compress(data, frames=1):
    """Real zstd output from the `zstd` command; frames > 1 compresses that many pieces apart
    and concatenates them (as zstd:chunked layers are several frames)."""
    step = -(-len(data) // frames) or 1
    out = b""
    for i in range(0, max(len(data), 1), step):
        out += subprocess.run(["zstd", "-q", "-c", "-3"], input=data[i:i + step],
                              capture_output=True, check=True).stdout
    return out


def compressed_bundle(targets, method="zlib", version=2):
    """CCOB (clang's ClangOffloadBundler.rst): magic, u16 version, u16 method (0 zlib, 1 zstd),
    total size and uncompressed size (u32 each in version 2, u64 in version 3), u64 truncated
    MD5, data."""
    inner = offload_bundle(targets)
    data = zstd_compress(inner) if method == "zstd" else zlib.compress(inner)
    code = 1 if method == "zstd" else 0
    if version == 3:
        return b"CCOB" + struct.pack("<HHQQQ", 3, code, 32 + len(data), len(inner), 0) + data
    return b"CCOB" + struct.pack("<HHIIQ", 2, code, 24 + len(data), len(inner), 0) + data


def c_array(name, section, data):
    body = ",".join(str(b) for b in data)
    return (f'__attribute__((section("{section}"), aligned(4096), used))\n'
            f"const unsigned char {name}[{len(data)}] = {{{body}}};\n")


def shared_library(path, work, fatbins=(), bundles=()):
    """Compiles a real shared object holding the given section contents."""
    src = "int anygpu_test_symbol(void) { return 1; }\n"
    for i, data in enumerate(fatbins):
        src += c_array(f"fatbin_{i}", ".nv_fatbin", data)
    for i, data in enumerate(bundles):
        src += c_array(f"bundle_{i}", ".hip_fatbin", data)
    c = Path(work) / (Path(path).name + ".c")
    c.write_text(src)
    subprocess.run(["cc", "-shared", "-fPIC", "-O0", "-o", str(path), str(c)], check=True)


def compat_note(cuda="12.9", drivers=(535, 550, 560, 565, 570, 575),
                devices=(1, 2, 7, 8, 9, 10, 11, 12, 13, 14), desc=None):
    """The `.note.cuda.fwd_compatibility` note of a cuda-compat libcuda.so, as
    nvidia-container-toolkit's cudacompat/cuda-elf-header.go reads it: an ELF note header (u32
    name size, u32 description size, u32 type), the name "NVIDIA Corporation" NUL-terminated
    and padded to 4, the JSON description padded to 4. The defaults are what that project's
    test records for libcuda.so.575.57.08."""
    if desc is None:
        desc = json.dumps({"Format": 1, "CUDA Version": cuda, "Driver": list(drivers),
                           "Device": list(devices)}).encode()
    name = b"NVIDIA Corporation\0"
    pad = lambda b: b + b"\0" * ((4 - len(b) % 4) % 4)
    return struct.pack("<III", len(name), len(desc), 1) + pad(name) + pad(desc)


def compat_library(path, work, note=None):
    """A real shared object standing in for cuda-compat's libcuda.so: a `.note.cuda.
    fwd_compatibility` section (SHT_NOTE, as the assembler types every `.note*` section)
    holding `note`, or no such section when note is None."""
    src = "int cuInit(unsigned int flags) { return (int)flags; }\n"
    if note is not None:
        body = ",".join(str(b) for b in note)
        src += (f'__attribute__((section(".note.cuda.fwd_compatibility"), aligned(4), used))\n'
                f"const unsigned char fwd_compat[{len(note)}] = {{{body}}};\n")
    c = Path(work) / (Path(path).name + ".c")
    c.write_text(src)
    subprocess.run(["cc", "-shared", "-fPIC", "-O0", "-o", str(path), str(c)], check=True)


def layer_tar(files, whiteouts=(), opaque=(), links=()):
    """files: {path: bytes}; whiteouts: paths deleted from lower layers; opaque: directories
    whose lower contents are hidden; links: (path, target) symlinks. Returns tar bytes."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        dirs = set()
        for p in list(files) + [w for w in whiteouts] + [o + "/x" for o in opaque] + [
                l for l, _ in links]:
            parts = p.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                dirs.add("/".join(parts[:i]))
        for d in sorted(dirs):
            ti = tarfile.TarInfo(d)
            ti.type = tarfile.DIRTYPE
            ti.mode = 0o755
            tar.addfile(ti)
        for p, data in files.items():
            ti = tarfile.TarInfo(p)
            ti.size = len(data)
            ti.mode = 0o755
            tar.addfile(ti, io.BytesIO(data))
        for w in whiteouts:
            d, _, base = w.rpartition("/")
            ti = tarfile.TarInfo((d + "/" if d else "") + ".wh." + base)
            tar.addfile(ti, io.BytesIO(b""))
        for o in opaque:
            tar.addfile(tarfile.TarInfo(o + "/.wh..wh..opq"), io.BytesIO(b""))
        for p, target in links:
            ti = tarfile.TarInfo(p)
            ti.type = tarfile.SYMTYPE
            ti.linkname = target
            tar.addfile(ti)
    return buf.getvalue()


def sha(data):
    return hashlib.sha256(data).hexdigest()


def config_json(layers, env):
    return json.dumps({
        "architecture": "amd64", "os": "linux",
        "config": {"Env": ["PATH=/usr/local/bin:/usr/bin:/bin"] + env},
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + sha(l) for l in layers]},
    }).encode()


def docker_archive(out, layers, env=(), tag="localhost/test:latest"):
    """`docker save` (Docker >= 25 layout, as podman writes too): blobs named by digest."""
    cfg = config_json(layers, list(env))
    with tarfile.open(out, "w") as tar:
        def add(name, data):
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            tar.addfile(ti, io.BytesIO(data))
        names = []
        for l in layers:
            names.append("blobs/sha256/" + sha(l))
            add(names[-1], l)
        add("blobs/sha256/" + sha(cfg), cfg)
        add("manifest.json", json.dumps([{"Config": "blobs/sha256/" + sha(cfg),
                                          "RepoTags": [tag], "Layers": names}]).encode())
    return "sha256:" + sha(cfg)


def oci_layout(out_dir, layers, env=(), ref="test", gzip_layers=True, zstd_frames=0):
    """An OCI image layout directory with tar+gzip layers (tar+zstd ones, of that many frames,
    when zstd_frames > 0)."""
    out = Path(out_dir)
    blobs = out / "blobs" / "sha256"
    blobs.mkdir(parents=True, exist_ok=True)

    def put(data):
        (blobs / sha(data)).write_bytes(data)
        return sha(data)
    descs = []
    for l in layers:
        if zstd_frames:
            blob, suffix = zstd_compress(l, zstd_frames), "+zstd"
        else:
            blob = gzip.compress(l, mtime=0) if gzip_layers else l
            suffix = "+gzip" if gzip_layers else ""
        descs.append({"mediaType": "application/vnd.oci.image.layer.v1.tar" + suffix,
                      "digest": "sha256:" + put(blob), "size": len(blob)})
    cfg = config_json(layers, list(env))
    manifest = json.dumps({
        "schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                   "digest": "sha256:" + put(cfg), "size": len(cfg)},
        "layers": descs}).encode()
    mdigest = put(manifest)
    (out / "oci-layout").write_text('{"imageLayoutVersion":"1.0.0"}')
    (out / "index.json").write_text(json.dumps({
        "schemaVersion": 2, "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": "sha256:" + mdigest, "size": len(manifest),
            "platform": {"architecture": "amd64", "os": "linux"},
            "annotations": {"org.opencontainers.image.ref.name": ref}}]}))
    return "sha256:" + sha(cfg)


def tar_directory(src_dir, out):
    with tarfile.open(out, "w") as tar:
        for p in sorted(Path(src_dir).rglob("*")):
            tar.add(p, arcname=str(p.relative_to(src_dir)), recursive=False)


SITE = "usr/local/lib/python3.11/site-packages"


def torch_files(version, cuda=None, hip=None):
    py = (f"__version__ = '{version}'\ndebug = False\n"
          f"cuda: Optional[str] = {cuda!r}\ngit_version = 'abc'\nhip: Optional[str] = {hip!r}\n"
          "xpu: Optional[str] = None\n")
    base = version.split("+")[0]
    meta = f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n"
    return {f"{SITE}/torch/version.py": py.encode(),
            f"{SITE}/torch-{base}.dist-info/METADATA": meta.encode()}


def docker_store(data_root, layers, env=(), tag="test:latest"):
    """Docker's classic overlay2 image store under `data_root`, as dockerd keeps a pulled image:
    repositories.json (familiar names, moby reference/store.go), the config under imagedb named
    by its digest, each layer's layerdb entry under its chain ID (diff, cache-id) and its files
    unpacked in overlay2/<cache-id>/diff, a `.wh.` whiteout turned into overlay's character
    device 0/0. Returns the image id (hex)."""
    root = Path(data_root)
    images = root / "image" / "overlay2"
    cfg = config_json(layers, list(env))
    image_id = sha(cfg)
    (images / "imagedb" / "content" / "sha256").mkdir(parents=True, exist_ok=True)
    (images / "imagedb" / "content" / "sha256" / image_id).write_bytes(cfg)
    chain = None
    for n, layer in enumerate(layers):
        diff = "sha256:" + sha(layer)
        chain = diff if chain is None else "sha256:" + sha(f"{chain} {diff}".encode())
        cache_id = sha(f"cache-{n}-{diff}".encode())
        entry = images / "layerdb" / "sha256" / chain[7:]
        entry.mkdir(parents=True, exist_ok=True)
        (entry / "diff").write_text(diff)
        (entry / "cache-id").write_text(cache_id)
        target = root / "overlay2" / cache_id / "diff"
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(layer)) as tar:
            for member in tar.getmembers():
                d, _, base = member.name.rpartition("/")
                if base == ".wh..wh..opq":
                    raise ValueError("opaque directories need trusted xattrs: not built here")
                if base.startswith(".wh."):
                    (target / d).mkdir(parents=True, exist_ok=True)
                    os.mknod(target / d / base[4:], 0o600 | stat.S_IFCHR, os.makedev(0, 0))
                    continue
                tar.extract(member, target)
    name, _, version = tag.rpartition(":")
    repos = {"Repositories": {name: {tag: "sha256:" + image_id}}}
    (images / "repositories.json").write_text(json.dumps(repos))
    return image_id
