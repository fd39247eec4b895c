"""torch.compile where this torch and device can compile, eager (with one warning) elsewhere."""
import functools
import importlib.util
import os
import shutil

import torch

from ._device import device
from ._vendor import compile_backend
from ._warn import warn_once


def _missing_compiler(backend) -> str:
    if backend != "inductor":
        return ""  # other backends check their own prerequisites
    device_type = device().type
    if device_type in ("cuda", "xpu") and importlib.util.find_spec("triton") is None:
        return f"inductor needs triton for {device_type!r} and it is not installed"
    if device_type == "cpu":
        cxx = os.environ.get("CXX", "g++")
        if shutil.which(cxx) is None and shutil.which("c++") is None:
            return f"inductor needs a C++ compiler on the CPU ({cxx} not found)"
    return ""


def compile(model=None, *, mode=None, backend="inductor", **kwargs):
    """torch.compile(model, mode=..., backend=..., fullgraph=..., dynamic=..., options=...),
    or `model` unchanged where torch lacks torch.compile or the backend cannot compile here.
    "inductor" means the device's own compiler where it has one (Gaudi: hpu_backend; Ascend:
    torch_npu's inductor, else TorchAir)."""
    if model is None:  # used as a decorator with arguments, like torch.compile
        return functools.partial(compile, mode=mode, backend=backend, **kwargs)
    torch_compile = getattr(torch, "compile", None)
    if torch_compile is None:
        warn_once("compile-missing", f"anygpu: torch {torch.__version__} has no torch.compile "
                  "(added in torch 2.0); running the model eagerly")
        return model
    backend, problem = compile_backend(device().type, backend)
    problem = problem or _missing_compiler(backend)
    if problem:
        warn_once("compile-" + problem, f"anygpu: {problem}; running the model eagerly")
        return model
    return torch_compile(model, mode=mode, backend=backend, **kwargs)
