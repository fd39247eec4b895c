"""Each vendor's documented path, taken with fake plugins (tests/python/fakes) on a CPU torch:
the calls anygpu.torch makes and their order. Sources are cited in anygpu/torch/_vendor.py."""
import json
import os

import pytest
import torch

from anygpu.torch import _vendor
from conftest import REPO, run_python

FAKES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes")
PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vendor_paths_probe.py")


def probe(vendor, root, **env):
    path = os.pathsep.join([os.path.join(FAKES, "common"), os.path.join(FAKES, root),
                            os.path.join(REPO, "python")])
    code = f"import runpy, sys; sys.argv = ['probe', {vendor!r}]; runpy.run_path({PROBE!r}, " \
           "run_name='__main__')"
    return json.loads(run_python(code, PYTHONPATH=path, **env).stdout)


def test_gaudi_registers_hccl_before_the_process_group_and_binds_hpu():
    out = probe("gaudi", "gaudi", ANYGPU_VENDOR="gaudi", ANYGPU_TORCH_DEVICE="hpu",
                ANYGPU_DIST_BACKEND="hccl", RANK=1, WORLD_SIZE=2, LOCAL_RANK=1,
                LOCAL_WORLD_SIZE=2, MASTER_ADDR="127.0.0.1", MASTER_PORT=29999)
    assert out["device"] == "hpu"  # not hpu:1: the bridge binds the process to its module
    assert out["events"] == ["import habana_frameworks.torch",
                             "import habana_frameworks.torch.distributed.hccl",
                             "init_process_group(backend='hccl')",
                             "torch.compile(backend='hpu_backend')"]


def test_ascend_uses_its_own_scaler_and_torchair_to_compile():
    out = probe("ascend", "npu", ANYGPU_VENDOR="cpu", ANYGPU_TORCH_DEVICE="cpu")
    assert out["events"][:2] == ["import torch_npu", "torch_npu.GradScaler()"]
    assert out["events"][2] == "torchair.get_npu_backend(CompilerConfig)"
    assert out["backend"] == ["torchair-npu-backend", ""] and out["unavailable"] == ""


def test_ascend_with_its_own_inductor_compiles_with_inductor():
    out = probe("ascend", "npu_inductor", ANYGPU_VENDOR="cpu", ANYGPU_TORCH_DEVICE="cpu")
    assert out["backend"] == ["inductor", ""]


def test_ascend_without_a_compiler_says_which_to_install(monkeypatch):
    monkeypatch.setattr(_vendor.importlib.util, "find_spec", lambda name: None)
    backend, reason = _vendor.compile_backend("npu", "inductor")
    assert backend is None and "torch_npu._inductor" in reason and "torchair" in reason


def test_moore_threads_uses_its_own_scaler_and_mccl():
    out = probe("mthreads", "musa", ANYGPU_VENDOR="cpu", ANYGPU_TORCH_DEVICE="cpu")
    assert out["events"] == ["import torch_musa", "torch_musa.GradScaler()"]
    assert out["unavailable"] == ""


def test_xpu_bf16_is_asked_without_emulation(monkeypatch):
    calls = []

    class Xpu:
        @staticmethod
        def is_bf16_supported(including_emulation=True):
            calls.append(including_emulation)
            return including_emulation

    monkeypatch.setattr(torch, "xpu", Xpu, raising=False)
    assert _vendor.native_bf16("xpu") is False and calls == [False]


def test_plugin_backends_without_their_plugin_are_refused_with_the_reason():
    from anygpu.torch._distributed import unavailable
    assert "not installed" in unavailable("hccl", "npu")
    assert "not installed" in unavailable("mccl", "musa")
    assert "runs collectives on npu/hpu tensors" in unavailable("hccl", "cuda")
