"""Where a vendor's torch plugin differs from stock torch, as each vendor documents it.

- Gaudi (habana_frameworks.torch): every process is bound to one module by the bridge
  (HABANA_VISIBLE_MODULES), and scripts address it as torch.device("hpu"), never "hpu:N"; the
  HCCL backend is registered by `import habana_frameworks.torch.distributed.hccl`, which must
  precede init_process_group("hccl"); torch.compile takes backend="hpu_backend". Sources:
  Habana's distributed examples (`import habana_frameworks.torch.distributed.hccl` then
  init_process_group(backend='hccl'), device = torch.device('hpu')); microsoft/DeepSpeed
  PR #5269 ("HPU uses hpu_backend for torch.compile"); vllm-project/vllm-gaudi
  vllm_gaudi/utils.py HPUCompileConfig ({'backend': 'hpu_backend', ...}).
- Ascend (torch_npu), Moore Threads (torch_musa), Cambricon (torch_mlu): the plugins ship their
  own GradScaler as torch.npu.amp.GradScaler / torch.musa.amp.GradScaler /
  torch.mlu.amp.GradScaler (Ascend/pytorch torch_npu/npu/amp/grad_scaler.py adds the NPU's
  overflow detection); huggingface/accelerate's get_grad_scaler chooses them the same way.
- Intel XPU: native bfloat16 is asked with torch.xpu.is_bf16_supported(including_emulation=
  False) (pytorch torch/xpu/__init__.py: emulation counts as support by default).
- Ascend compile: torch_npu's own inductor (Ascend/pytorch torch_npu/_inductor, newer
  releases) makes backend="inductor" work on "npu"; otherwise TorchAir's graph backend
  (Ascend/torchair examples/example.py: torchair.get_npu_backend(compiler_config=
  CompilerConfig()) passed as torch.compile(..., backend=...)).
"""
import importlib
import importlib.util

import torch

from .._environment import TORCH_DEVICES

# Distributed backend -> the module whose import registers it with torch.distributed.
_BACKEND_MODULES = {
    ("hccl", "hpu"): "habana_frameworks.torch.distributed.hccl",
    ("hccl", "npu"): "torch_npu",
    ("mccl", "musa"): "torch_musa",
    ("cncl", "mlu"): "torch_mlu",
    ("eccl", "gcu"): "torch_gcu",
    ("ccl", "xpu"): "oneccl_bindings_for_pytorch",
}
_OWN_SCALERS = ("npu", "musa", "mlu")


def torch_device(device_type: str, local_rank: int):
    """The device a process of LOCAL_RANK addresses (Gaudi: the one its bridge was bound to)."""
    if device_type == "hpu":
        return torch.device("hpu")
    return torch.device(device_type, local_rank)


def register_backend(backend: str, device_type: str) -> None:
    """Imports the plugin that registers `backend` before init_process_group needs it."""
    module = _BACKEND_MODULES.get((backend, device_type))
    if module is not None:
        importlib.import_module(module)


def plugin_grad_scaler(device_type: str):
    """The plugin's own GradScaler class for npu/musa/mlu, else None (torch's is used)."""
    if device_type not in _OWN_SCALERS:
        return None
    try:
        importlib.import_module(TORCH_DEVICES[device_type][0])  # installs torch.<device_type>
    except ImportError:
        return None
    amp = getattr(getattr(torch, device_type, None), "amp", None)
    return getattr(amp, "GradScaler", None)


def native_bf16(device_type: str) -> bool:
    """False where the device only emulates bfloat16 (slower than float16 there)."""
    module = getattr(torch, device_type, None)
    check = getattr(module, "is_bf16_supported", None)
    if device_type not in ("cuda", "xpu") or check is None:
        return True  # the autocast probe decides
    try:
        return bool(check(including_emulation=False))
    except TypeError:  # releases without the argument
        pass
    try:
        return bool(check())
    except (AssertionError, RuntimeError):
        return False


def compile_backend(device_type: str, backend):
    """The torch.compile backend for `device_type` when the caller asked for "inductor", and
    a reason when none can compile there (then the model stays eager)."""
    if backend != "inductor":
        return backend, ""
    if device_type == "hpu":
        return "hpu_backend", ""
    if device_type == "npu":
        if importlib.util.find_spec("torch_npu._inductor") is not None:
            return "inductor", ""
        if importlib.util.find_spec("torchair") is not None:
            import torchair
            from torchair.configs.compiler_config import CompilerConfig
            return torchair.get_npu_backend(compiler_config=CompilerConfig()), ""
        return None, ("inductor on 'npu' needs a torch_npu with its own inductor "
                      "(torch_npu._inductor) or TorchAir (torchair), and neither is installed")
    return backend, ""
