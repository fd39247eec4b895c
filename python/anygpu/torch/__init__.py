"""anygpu.torch: vendor-agnostic PyTorch glue over the selection anygpu made.

    import anygpu.torch as agt
    dev = agt.device()                 # cuda:0 on NVIDIA/AMD/Hygon, xpu, npu, ..., or cpu
    with agt.autocast(): ...           # bf16 where native, fp16 otherwise, no-op elsewhere

Importing this module imports torch, and the vendor plugin (torch_npu, torch_musa, torch_mlu,
habana_frameworks.torch, torch_gcu) only once a device of that vendor is asked for.
"""
from ._accelerator import Accelerator, DeviceLoader
from ._amp import amp_dtype, autocast, grad_scaler
from ._compile import compile
from ._device import SimulatedDevice, device, selection
from ._distributed import Ranks, dist_backend, init_distributed, ranks
from ._warn import AnygpuWarning
from ._workers import num_workers

__all__ = ["Accelerator", "AnygpuWarning", "DeviceLoader", "Ranks", "SimulatedDevice", "amp_dtype",
           "autocast", "compile", "device", "dist_backend", "grad_scaler", "init_distributed",
           "num_workers", "ranks", "selection"]
