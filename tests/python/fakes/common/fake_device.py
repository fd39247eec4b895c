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
    return module


class GradScaler:
    """The plugin's own loss scaler (the real ones add the device's overflow handling)."""

    def __init__(self, *args, **kwargs):
        fake_events.EVENTS.append(f"{type(self).__module__}.GradScaler()")
