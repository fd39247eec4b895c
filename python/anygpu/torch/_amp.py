"""Mixed precision by feature detection: the torch at hand is asked, versions are not guessed.

bfloat16 is preferred where the device runs it natively (no loss scaling needed), float16
otherwise, full precision where neither works. A dtype counts as supported when torch's own
autocast accepts it without disabling itself.
"""
import contextlib
import warnings

import torch

from ._device import device
from ._warn import warn_once


def _autocast_class():
    amp = getattr(torch, "amp", None)
    if amp is not None and hasattr(amp, "autocast"):
        return amp.autocast
    return getattr(torch, "autocast", None)  # torch 1.10-1.12


def _native_bf16(device_type: str) -> bool:
    if device_type != "cuda":
        return True
    try:  # emulated bfloat16 (pre-Ampere) is slower than float16: ask for native support
        return bool(torch.cuda.is_bf16_supported(including_emulation=False))
    except TypeError:
        pass
    try:
        return bool(torch.cuda.is_bf16_supported())
    except (AssertionError, RuntimeError):
        return False


def _accepted(device_type: str, dtype) -> bool:
    cls = _autocast_class()
    if cls is None:
        return False
    if dtype is torch.bfloat16 and not _native_bf16(device_type):
        return False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            ctx = cls(device_type=device_type, dtype=dtype)
        except (RuntimeError, ValueError, AssertionError, TypeError):
            return False
    # torch disables autocast with a warning for a dtype or device it cannot serve.
    return not caught and getattr(ctx, "_enabled", True)


_chosen = {}


def amp_dtype(device_type=None, dtype=None):
    """The autocast dtype for `device_type` (default: device()), or None for full precision."""
    device_type = device_type or device().type
    key = (device_type, dtype)
    if key not in _chosen:
        wanted = [dtype] if dtype is not None else [torch.bfloat16, torch.float16]
        _chosen[key] = next((d for d in wanted if _accepted(device_type, d)), None)
        if _chosen[key] is None and dtype is not None:
            warn_once(f"amp-{device_type}-{dtype}",
                      f"anygpu: autocast to {dtype} is not supported on {device_type!r} by "
                      f"torch {torch.__version__}; running in full precision")
    return _chosen[key]


def autocast(dtype=None, *, device_type=None, enabled: bool = True):
    """torch's autocast for the selected device, or a no-op context where none works."""
    device_type = device_type or device().type
    chosen = amp_dtype(device_type, dtype) if enabled else None
    if chosen is None:
        return contextlib.nullcontext()
    return _autocast_class()(device_type=device_type, dtype=chosen)


def grad_scaler(dtype=None, *, device_type=None):
    """A GradScaler when autocast runs in float16 (it underflows without one), else None."""
    device_type = device_type or device().type
    if amp_dtype(device_type, dtype) is not torch.float16:
        return None
    amp = getattr(torch, "amp", None)
    if amp is not None and hasattr(amp, "GradScaler"):
        return amp.GradScaler(device_type)
    legacy = getattr(getattr(torch, device_type, None), "amp", None)  # before torch.amp had it
    if legacy is not None and hasattr(legacy, "GradScaler"):
        return legacy.GradScaler()
    warn_once(f"scaler-{device_type}",
              f"anygpu: torch {torch.__version__} has no GradScaler for {device_type!r}; "
              "float16 gradients are not scaled")
    return None
