"""anygpu.torch: vendor-agnostic PyTorch glue over the selection anygpu made.

    import anygpu.torch as agt
    dev = agt.device()                 # cuda:0 on NVIDIA/AMD/Hygon, xpu, npu, ..., or cpu
    with agt.autocast(): ...           # bf16 where native, fp16 otherwise, no-op elsewhere

Importing this module imports torch, and the vendor plugin (torch_npu, torch_musa, torch_mlu,
habana_frameworks.torch, torch_gcu) only once a device of that vendor is asked for.
"""
import gc as _gc

from . import _device as _device_mod
from . import _state as _state_mod
from ._accelerator import Accelerator
from ._amp import amp_dtype, autocast, grad_scaler
from ._beats import beat
from ._collectives import (broadcast, gather, gather_object, pad_across_processes, reduce,
                           wait_for_everyone)
from ._compile import compile
from ._device import SimulatedDevice, device, selection
from ._distributed import Ranks, dist_backend, init_distributed, ranks
from ._loader import PreparedLoader, move
from ._optim import PreparedOptimizer
from ._preemption import Preemption
from ._warn import AnygpuWarning
from ._workers import num_workers

DeviceLoader = PreparedLoader  # the name of earlier releases

__all__ = ["Accelerator", "AnygpuWarning", "DeviceLoader", "Preemption", "PreparedLoader",
           "PreparedOptimizer", "Ranks", "SimulatedDevice", "amp_dtype", "autocast", "beat", "broadcast",
           "compile", "device", "dist_backend", "free_memory", "gather", "gather_object", "grad_scaler",
           "init_distributed", "memory_stats", "move", "num_workers", "pad_across_processes",
           "ranks", "reduce", "selection", "set_seed", "wait_for_everyone"]


def set_seed(seed: int) -> None:
    """Seeds Python's, NumPy's (when installed), torch's and the selected device's RNGs."""
    _state_mod.set_seed(seed, device())


def memory_stats() -> dict:
    """Allocated/reserved bytes (and peaks) on device(); peak resident set on the CPU."""
    return _device_mod.memory_stats(device())


def free_memory(*objects):
    """Collects garbage and returns cached device memory; returns one None per argument, so
    `model, opt = free_memory(model, opt)` drops the caller's references too."""
    _gc.collect()
    _device_mod.empty_cache(device())
    return [None] * len(objects)
