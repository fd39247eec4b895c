"""Reads the environment `anygpu run` / `anygpu select` exported, and the launcher variables.

Every value is validated: a malformed variable is an InvalidEnvironmentError naming it, never
a silent default, because a wrong rank or device index fails much later and far from its cause.
"""
import os

from ._errors import InvalidEnvironmentError
# torch device type -> (package that registers it with torch, distributed backend), generated
# from the registry. ROCm and Hygon DTK builds of torch use the `cuda` device type and `nccl`
# (RCCL behind it).
from ._registry import TORCH_DEVICES

SELECTION_KEYS = ("ANYGPU_VENDOR", "ANYGPU_BACKEND", "ANYGPU_TORCH_DEVICE",
                  "ANYGPU_DIST_BACKEND", "ANYGPU_DEVICES", "ANYGPU_NUM_WORKERS")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")


def _is_name(text: str) -> bool:
    return bool(text) and text[0].isalpha() and set(text) <= _NAME_CHARS


_INT_MAX = 2**31 - 1  # what the launchers and torch store these in


def integer(name: str, minimum: int = 0, default=None, environ=None):
    env = os.environ if environ is None else environ
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        if len(raw) > 12:
            raise ValueError(raw)
        value = int(raw.strip(), 10)
    except ValueError:
        raise InvalidEnvironmentError(
            f"{name}={raw!r}: not an integer in {minimum}..{_INT_MAX}") from None
    if value < minimum or value > _INT_MAX:
        raise InvalidEnvironmentError(f"{name}={raw!r}: must be {minimum}..{_INT_MAX}")
    return value


def torch_device_type(raw: str, name: str = "ANYGPU_TORCH_DEVICE") -> str:
    if raw not in TORCH_DEVICES:
        raise InvalidEnvironmentError(
            f"{name}={raw!r}: unknown torch device type (known: {', '.join(TORCH_DEVICES)})")
    return raw


def selection_from_environment(environ=None):
    """The selection `anygpu run` exported into this process, or None when there is none."""
    env = os.environ if environ is None else environ
    if not any(k in env for k in SELECTION_KEYS):
        return None
    missing = [k for k in ("ANYGPU_VENDOR", "ANYGPU_TORCH_DEVICE") if not env.get(k)]
    if missing:
        raise InvalidEnvironmentError(
            f"{' and '.join(missing)} unset or empty while other ANYGPU_* selection variables "
            "are set: export the whole selection (eval \"$(anygpu select)\") or none of it")
    vendor = env["ANYGPU_VENDOR"]
    if not _is_name(vendor):
        raise InvalidEnvironmentError(f"ANYGPU_VENDOR={vendor!r}: not a vendor id")
    device = torch_device_type(env["ANYGPU_TORCH_DEVICE"])
    dist = env.get("ANYGPU_DIST_BACKEND") or TORCH_DEVICES[device][1]
    if not _is_name(dist):
        raise InvalidEnvironmentError(f"ANYGPU_DIST_BACKEND={dist!r}: not a backend name")
    devices = [d for d in env.get("ANYGPU_DEVICES", "").split(",") if d]
    workers = integer("ANYGPU_NUM_WORKERS", environ=env)
    return {
        "schema": "anygpu.selection/v1",
        "vendor": vendor,
        "backend": env.get("ANYGPU_BACKEND") or vendor,
        "devices": devices,
        "env": {k: v for k, v in env.items() if k in SELECTION_KEYS},
        "torch_device": device,
        "dist_backend": dist,
        **({"num_workers": workers} if workers is not None else {}),
        "source": "environment",
        # Discovery's warnings were reported when `anygpu run` or `anygpu select` made it.
        "warnings": [],
    }
