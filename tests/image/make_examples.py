#!/usr/bin/python3
"""Writes the example images docs/image.md runs `anygpu image check` on (tests/image/examples/):
torch-cu124.tar, a CUDA torch with a flash-attention extension built for sm_90 only, and
torch-rocm62.tar, a ROCm torch whose kernels target gfx90a and gfx942, and torch-cu129-compat.tar,
a CUDA 12.9 torch with cuda-compat's libcuda.so.575.57.08 (its .note.cuda.fwd_compatibility
admits driver branches 535 550 560 565 570 575), and torch-npu-cann85.tar, torch_npu 2.4.0.post2
with its own CANN 8.5.0. All are docker-archive files built by
make_images.py; regenerate them with this script after changing it.
"""

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_images as mk  # noqa: E402

CUDA_ENV = ["CUDA_VERSION=12.4.1",
            "NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471"]


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        w = Path(work)
        mk.shared_library(w / "libtorch_cuda.so", work,
                          fatbins=[mk.fatbin_container([(2, 80), (2, 86), (2, 90), (1, 90)])])
        mk.shared_library(w / "flash.so", work, fatbins=[mk.fatbin_container([(2, 90)])])
        mk.shared_library(w / "libtorch_hip.so", work,
                          bundles=[mk.offload_bundle(["gfx90a:xnack-", "gfx942"])])
        files = mk.torch_files("2.5.1+cu124", cuda="12.4")
        files[mk.SITE + "/torch/lib/libtorch_cuda.so"] = (w / "libtorch_cuda.so").read_bytes()
        flash = {mk.SITE + "/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so":
                 (w / "flash.so").read_bytes()}
        mk.docker_archive(out / "torch-cu124.tar", [mk.layer_tar(files), mk.layer_tar(flash)],
                          CUDA_ENV, tag="localhost/train:cu124")
        files = mk.torch_files("2.5.1+rocm6.2", hip="6.2.41133-dd7f95766")
        files[mk.SITE + "/torch/lib/libtorch_hip.so"] = (w / "libtorch_hip.so").read_bytes()
        mk.docker_archive(out / "torch-rocm62.tar", [mk.layer_tar(files)], [],
                          tag="localhost/train:rocm6.2")
        mk.shared_library(w / "libtorch_cuda129.so", work,
                          fatbins=[mk.fatbin_container([(2, 80), (2, 86), (2, 89), (2, 90),
                                                        (1, 90)])])
        mk.compat_library(w / "libcuda.so.575.57.08", work, mk.compat_note())
        files = mk.torch_files("2.8.0+cu129", cuda="12.9")
        files[mk.SITE + "/torch/lib/libtorch_cuda.so"] = (
            w / "libtorch_cuda129.so").read_bytes()
        compat = {"usr/local/cuda-12.9/compat/libcuda.so.575.57.08":
                  (w / "libcuda.so.575.57.08").read_bytes()}
        mk.docker_archive(out / "torch-cu129-compat.tar",
                          [mk.layer_tar(compat), mk.layer_tar(files)], [],
                          tag="localhost/train:cu129")
    ascend(out)


def ascend(out):
    """torch-npu-cann85.tar: a CPU torch 2.4.0 with torch_npu 2.4.0.post2 (paired with CANN
    8.0.0) and its own CANN 8.5.0 toolkit (which needs Ascend HDK 25.x)."""
    files = mk.torch_files("2.4.0")
    files[mk.SITE + "/torch_npu/version.py"] = b"__version__ = '2.4.0.post2'\n"
    files[mk.SITE + "/torch_npu-2.4.0.post2.dist-info/METADATA"] = (
        b"Metadata-Version: 2.1\nName: torch-npu\nVersion: 2.4.0.post2\n")
    files["usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info"] = (
        b"package_name=Ascend-cann-toolkit\nversion=8.5.0\narch=aarch64\n")
    mk.docker_archive(out / "torch-npu-cann85.tar", [mk.layer_tar(files)], [],
                      tag="localhost/train:npu-cann8.5.0")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent / "examples")
