"""A torch.<device> module as a vendor plugin installs it (availability, device binding, RNG)."""
import types

import fake_events


def install(torch, name, scaler_cls=None, bf16=True):
    module = types.ModuleType(f"torch.{name}")
    module.is_available = lambda: True
    module.device_count = lambda: 8
    module.set_device = lambda index: fake_events.EVENTS.append(f"torch.{name}.set_device({index})")
    module.is_bf16_supported = lambda: bf16
    module.synchronize = lambda *a: None
    if scaler_cls is not None:
        module.amp = types.SimpleNamespace(GradScaler=scaler_cls)
    setattr(torch, name, module)
    _become_the_accelerator(torch, name, module)
    return module


def _become_the_accelerator(torch, name, module):
    """torch >= 2.6 asks torch.accelerator, which a real plugin's C++ hooks answer with its
    device; this fake has no hooks, so it answers in their place (torch 1.13 has no such API)."""
    accel = getattr(torch, "accelerator", None)
    try:
        dev = torch.device(name)
    except RuntimeError:  # npu, musa: the real plugin renames privateuse1 first; fakes do not
        return
    if accel is None:
        return
    accel.current_accelerator = lambda *a, **k: dev
    accel.is_available = lambda: True
    accel.device_count = module.device_count
    accel.set_device_index = lambda index: module.set_device(index)


class GradScaler:
    """The plugin's own loss scaler (the real ones add the device's overflow handling)."""

    def __init__(self, *args, **kwargs):
        fake_events.EVENTS.append(f"{type(self).__module__}.GradScaler()")
