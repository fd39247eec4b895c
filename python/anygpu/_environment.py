"""Reads the environment `anygpu run` / `anygpu select` exported, and the launcher variables.

Every value is judged by the native library's table of environment variables
(anygpu_environment_json, the table and parsers the CLI uses): Python accepts exactly what the
CLI accepts, and refuses the rest with the CLI's message as an InvalidEnvironmentError, never a
silent default, because a wrong rank or device index fails much later and far from its cause.
The table is docs/environment.md.
"""
import os

from ._errors import InvalidEnvironmentError
# torch device type -> (package that registers it with torch, distributed backend), generated
# from the registry. ROCm and Hygon DTK builds of torch use the `cuda` device type and `nccl`
# (RCCL behind it).
from ._registry import TORCH_DEVICES

SELECTION_KEYS = ("ANYGPU_VENDOR", "ANYGPU_BACKEND", "ANYGPU_TORCH_DEVICE",
                  "ANYGPU_DIST_BACKEND", "ANYGPU_DEVICES", "ANYGPU_NUM_WORKERS")

# (name, value) -> the library's verdict. A process reads the same few values again and again
# (device() per call, ranks() per init); the rows Python reads do not depend on the file system.
_verdicts = {}
_MAX_VERDICTS = 4096


def table(environ=None, names=None) -> dict:
    """The anygpu.environment/v1 document: every variable anygpu reads, with the verdict on its
    value in `environ` (default: this process's environment, as the library sees it)."""
    from . import _lib  # bound by `import anygpu` before any reader runs
    options = {}
    if environ is not None:
        options["environment"] = {k: v for k, v in environ.items()}
    if names is not None:
        options["names"] = list(names)
    return _lib.call("anygpu_environment_json", options)


def _verdict(name: str, raw: str) -> dict:
    key = (name, raw)
    found = _verdicts.get(key)
    if found is None:
        if len(_verdicts) >= _MAX_VERDICTS:
            _verdicts.clear()
        found = _verdicts[key] = table({name: raw}, [name])["variables"][0]
    return found


def value(name: str, environ=None):
    """The library's verdict on `name` in `environ` (default os.environ): None when unset or
    empty, else a dict with "value" and, by kind, "number", "flag" or "first"."""
    env = os.environ if environ is None else environ
    raw = env.get(name)
    if raw is None:
        return None
    verdict = _verdict(name, raw)
    if "error" in verdict:
        raise InvalidEnvironmentError(verdict["error"])
    return verdict if raw != "" else None


def integer(name: str, default=None, environ=None):
    """`name` as a number in the table's range, or `default` when unset or empty."""
    verdict = value(name, environ)
    return default if verdict is None else verdict["number"]


def torch_device_type(raw: str, name: str) -> str:
    """A torch device type from a document (not the environment: value() judges that)."""
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
    vendor = value("ANYGPU_VENDOR", env)["value"]
    device = value("ANYGPU_TORCH_DEVICE", env)["value"]
    backend = value("ANYGPU_BACKEND", env)
    dist = value("ANYGPU_DIST_BACKEND", env)
    devices = value("ANYGPU_DEVICES", env)
    workers = integer("ANYGPU_NUM_WORKERS", environ=env)
    return {
        "schema": "anygpu.selection/v1",
        "vendor": vendor,
        "backend": backend["value"] if backend else vendor,
        "devices": [d.strip() for d in devices["value"].split(",") if d.strip()] if devices else [],
        "env": {k: v for k, v in env.items() if k in SELECTION_KEYS},
        "torch_device": device,
        # A registry override may name a device type this package has no table row for.
        "dist_backend": dist["value"] if dist else TORCH_DEVICES.get(device, (None, "gloo"))[1],
        **({"num_workers": workers} if workers is not None else {}),
        "source": "environment",
        # Discovery's warnings were reported when `anygpu run` or `anygpu select` made it.
        "warnings": [],
    }
