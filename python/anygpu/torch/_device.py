"""The torch device of the selected accelerator, and how to talk to it.

The selection comes from `anygpu run` (ANYGPU_* variables) or, when none was exported, from the
native library's `select`. torch is asked only whether it can use the selected type; it never
chooses the vendor.
"""
import importlib
import os
from typing import NamedTuple, Optional

import torch

import anygpu
from .._environment import TORCH_DEVICES, integer, torch_device_type
from ._vendor import torch_device
from ._warn import warn_once

# Variables device() depends on: the cache is keyed by their values, so a test (or a launcher)
# that changes them gets a fresh answer while the steady state costs a few dictionary lookups.
_KEYS = ("ANYGPU_VENDOR", "ANYGPU_TORCH_DEVICE", "ANYGPU_DEVICES", "ANYGPU_ROOT",
         "ANYGPU_NO_LIBS", "LOCAL_RANK")
_devices = {}
_selections = {}


def _key():
    env = os.environ
    return tuple(env.get(k) for k in _KEYS)


def selection() -> dict:
    """The anygpu.selection/v1 document this process uses (cached per environment)."""
    key = _key()[:5]
    sel = _selections.get(key)
    if sel is None:
        sel = anygpu.select()
        torch_device_type(sel.get("torch_device", ""), "selection torch_device")
        _selections[key] = sel
    return sel


class SimulatedDevice(NamedTuple):
    """A device of a simulated host whose type this torch cannot name without the vendor's
    plugin (npu, musa, mlu, gcu): it carries the selection, it cannot hold tensors."""

    type: str
    index: Optional[int] = None

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"


def simulated() -> bool:
    """True on a simulated host (ANYGPU_ROOT): the devices exist only in a fixture tree."""
    return bool(os.environ.get("ANYGPU_ROOT"))


def _load_plugin(device_type: str) -> None:
    plugin = TORCH_DEVICES[device_type][0]
    if plugin:
        importlib.import_module(plugin)  # registers the device type with torch


def _torch_build() -> str:
    version = getattr(torch, "version", None)
    for attr, name in (("hip", "ROCm"), ("cuda", "CUDA"), ("xpu", "XPU")):
        if getattr(version, attr, None):
            return f"torch {torch.__version__} ({name} {getattr(version, attr)} build)"
    return f"torch {torch.__version__}"


def unusable(device_type: str):
    """None when the installed torch can run on `device_type`, else the reason why not."""
    try:
        _load_plugin(device_type)
    except ImportError as e:
        return f"{TORCH_DEVICES[device_type][0]} is not installed ({e})"
    accel = getattr(torch, "accelerator", None)
    if accel is not None and hasattr(accel, "current_accelerator"):
        current = accel.current_accelerator()
        if current is None or current.type != device_type or not accel.is_available():
            found = current.type if current is not None else "none"
            return f"{_torch_build()} has no usable {device_type!r} accelerator (it has: {found})"
        return None
    module = getattr(torch, device_type, None)
    if module is None or not module.is_available():
        return f"{_torch_build()} cannot use device type {device_type!r}"
    return None


def device():
    """The device this process trains on: the selected accelerator, indexed by LOCAL_RANK.

    Falls back to CPU, with one warning naming the fix, when the host has accelerators the
    installed torch cannot use. On a simulated host the selected type is returned as is.
    """
    key = _key()
    found = _devices.get(key)
    if found is None:
        found = _devices[key] = _resolve()
    return found


def _resolve():
    sel = selection()
    device_type = sel["torch_device"]
    local_rank = integer("LOCAL_RANK", default=0)
    if device_type == "cpu":
        return torch.device("cpu")
    if not simulated():
        reason = unusable(device_type)
        if reason is not None:
            warn_once("device-fallback",
                      f"anygpu: this host has {sel.get('vendor')} accelerators "
                      f"({', '.join(sel.get('devices', [])) or 'selected'}) but {reason}; "
                      f"using the CPU. Run `anygpu wheel` for the torch build that fits this host.")
            return torch.device("cpu")
        return torch_device(device_type, local_rank)
    try:
        return torch_device(device_type, local_rank)
    except RuntimeError:  # e.g. "npu" before torch_npu renamed torch's privateuse1 type to it
        return SimulatedDevice(device_type, local_rank)


def set_device(dev: torch.device) -> None:
    if dev.type == "cpu" or dev.index is None or simulated():
        return
    accel = getattr(torch, "accelerator", None)
    if accel is not None and hasattr(accel, "set_device_index"):
        accel.set_device_index(dev.index)
    else:
        getattr(torch, dev.type).set_device(dev.index)


def _device_module(dev: torch.device):
    return None if dev.type == "cpu" else getattr(torch, dev.type, None)


def synchronize(dev: torch.device) -> None:
    """Waits for the device's queued work (a no-op on CPU, where work is synchronous)."""
    if dev.type == "cpu":
        return
    accel = getattr(torch, "accelerator", None)
    if accel is not None and hasattr(accel, "synchronize"):
        accel.synchronize(dev)
    else:
        _device_module(dev).synchronize()


def empty_cache(dev: torch.device) -> None:
    """Returns cached, unused device memory to the driver (no-op on CPU)."""
    if dev.type == "cpu":
        return
    memory = getattr(getattr(torch, "accelerator", None), "memory", None)
    if memory is not None and hasattr(memory, "empty_cache"):
        memory.empty_cache()
        return
    module = _device_module(dev)
    if module is not None and hasattr(module, "empty_cache"):
        module.empty_cache()


def memory_stats(dev) -> dict:
    """Bytes allocated/reserved (and their peaks) on the device, from torch.accelerator.memory
    or the device module; on the CPU, this process's peak resident set. Unknown keys are absent."""
    if dev.type == "cpu":
        import resource
        return {"device": "cpu",
                "max_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    sources = [getattr(getattr(torch, "accelerator", None), "memory", None), _device_module(dev)]
    out = {"device": str(dev)}
    for key, name in (("allocated_bytes", "memory_allocated"),
                      ("max_allocated_bytes", "max_memory_allocated"),
                      ("reserved_bytes", "memory_reserved"),
                      ("max_reserved_bytes", "max_memory_reserved")):
        fn = next((getattr(m, name) for m in sources if m is not None and hasattr(m, name)), None)
        if fn is not None:
            out[key] = int(fn(dev) if dev.index is not None else fn())
    return out
