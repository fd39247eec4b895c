"""Mixed precision by feature detection: the torch at hand is asked, versions are not guessed.

bfloat16 is preferred where the device runs it natively (no loss scaling needed), float16
otherwise, full precision where neither works. A dtype counts as supported when torch's own
autocast accepts it without disabling itself.
"""
import contextlib
import warnings

import torch

from ._device import device
from ._vendor import native_bf16, plugin_grad_scaler
from ._warn import warn_once


def _autocast_class():
    amp = getattr(torch, "amp", None)
    if amp is not None and hasattr(amp, "autocast"):
        return amp.autocast
    return getattr(torch, "autocast", None)  # torch 1.10-1.12


def _probe(device_type: str, dtype) -> str:
    """Runs what a training step runs (linear, LayerNorm, softmax, backward) under autocast on
    the device; returns the error, or "" when all of it works. Draws no random numbers."""
    dev = torch.device(device_type)
    F = torch.nn.functional
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = torch.linspace(-1, 1, 32, device=dev).reshape(4, 8).requires_grad_()
            w = torch.eye(8, device=dev)
            with _autocast_class()(device_type=device_type, dtype=dtype):
                y = F.layer_norm(F.linear(x, w), (8,), torch.ones(8, device=dev),
                                 torch.zeros(8, device=dev)).softmax(-1)
            y.float().sum().backward()
    except Exception as e:  # noqa: BLE001 - any failure means "cannot run it"
        return f"{type(e).__name__}: {e}".splitlines()[0]
    return ""


def _accepted(device_type: str, dtype) -> bool:
    return not _refusal(device_type, dtype)


def _refusal(device_type: str, dtype) -> str:
    """Why autocast to `dtype` cannot serve a training step on `device_type` ("" if it can)."""
    cls = _autocast_class()
    if cls is None:
        return "this torch has no autocast"
    if dtype is torch.bfloat16 and not native_bf16(device_type):
        return "the device only emulates bfloat16"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            ctx = cls(device_type=device_type, dtype=dtype)
        except (RuntimeError, ValueError, AssertionError, TypeError) as e:
            return str(e).splitlines()[0] if str(e) else type(e).__name__
    # torch disables autocast with a warning for a dtype or device it cannot serve.
    if caught or not getattr(ctx, "_enabled", True):
        return str(caught[0].message).splitlines()[0] if caught else "autocast disabled itself"
    return _probe(device_type, dtype)


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
                      f"torch {torch.__version__} ({_refusal(device_type, dtype)}); running in "
                      "full precision")
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
    own = plugin_grad_scaler(device_type)  # the vendor plugin's scaler (overflow handling)
    if own is not None:
        return own()
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
