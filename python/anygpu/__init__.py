"""anygpu: vendor-agnostic accelerator discovery and selection for Python.

    import anygpu
    anygpu.detect()           # the anygpu.inventory/v1 document, as a dict
    anygpu.select()           # the anygpu.selection/v1 document (or the one `anygpu run` made)

Every document has "warnings": what discovery went on without (a malformed sysfs file, a vendor
library that failed), each naming where. An AnygpuError carries them as `.warnings`.
    import anygpu.torch       # device(), autocast(), Accelerator, ... (imports torch)

Binds libanygpu.so through ctypes. Importing this package never imports torch.
"""
import os as _os

from ._environment import selection_from_environment as _selection_from_environment
from ._errors import (AnygpuError, BadInputError, ContractError, HostError,
                      InvalidEnvironmentError, LibraryNotFoundError)
from ._library import Library as _Library, load as _load

_lib = _Library(_load())
__version__ = _lib.version
library_path = _lib._lib._name

__all__ = ["detect", "select", "AnygpuError", "BadInputError", "ContractError", "HostError",
           "InvalidEnvironmentError", "LibraryNotFoundError", "__version__"]


def _host_options(root, no_libs, lib_timeout_ms) -> dict:
    # Absent keys fall back, inside the library, to ANYGPU_ROOT, ANYGPU_NO_LIBS and
    # ANYGPU_LIB_TIMEOUT_MS (judged there as the CLI judges them).
    opts = {}
    if root is not None:
        opts["root"] = _os.fspath(root)
    if no_libs is not None:
        opts["no_libs"] = bool(no_libs)
    if lib_timeout_ms is not None:
        opts["lib_timeout_ms"] = int(lib_timeout_ms)
    return opts


_checked_environments = set()


def _check_host_environment() -> None:
    # An exported selection skips the native select, but the variables that steer anygpu
    # (ANYGPU_ROOT, ANYGPU_NO_LIBS, ANYGPU_REGISTRY, ...) must still be refused exactly as the
    # CLI refuses them: the library judges them with the CLI's table, Python raises its message.
    values = tuple(sorted((k, v) for k, v in _os.environ.items() if k.startswith("ANYGPU_")))
    if values in _checked_environments:
        return
    for row in _lib.call("anygpu_environment_json", {})["variables"]:
        if row["steers"] and "error" in row:
            raise InvalidEnvironmentError(row["error"])
    _checked_environments.add(values)


def detect(*, root=None, no_libs=None, lib_timeout_ms=None) -> dict:
    """Every accelerator on the host (or beneath `root`): the anygpu.inventory/v1 document."""
    return _lib.call("anygpu_detect_json", _host_options(root, no_libs, lib_timeout_ms))


def select(config=None, *, nproc_per_node=None, python=None, root=None, no_libs=None,
           lib_timeout_ms=None) -> dict:
    """The devices this process should use: the anygpu.selection/v1 document.

    Without arguments, a selection `anygpu run` (or `eval "$(anygpu select)"`) already exported
    is returned as it is (with "source": "environment") instead of probing the host again.
    Otherwise `config` (default ./accelerator-config.yaml when present, else backend auto) is
    applied by the native library; its runtime contract failing raises ContractError.
    """
    explicit = (config, nproc_per_node, python, root, no_libs, lib_timeout_ms)
    if all(v is None for v in explicit):
        inherited = _selection_from_environment()
        if inherited is not None:
            _check_host_environment()
            return inherited
    opts = _host_options(root, no_libs, lib_timeout_ms)
    if config is not None:
        opts["config"] = _os.fspath(config)
    if nproc_per_node is not None:
        opts["nproc_per_node"] = int(nproc_per_node)
    if python is not None:
        opts["python"] = _os.fspath(python)
    return _lib.call("anygpu_select_json", opts)


def __getattr__(name):
    # `anygpu.torch` is imported on first use only: `import anygpu` must stay torch-free.
    if name == "torch":
        import importlib
        return importlib.import_module(".torch", __name__)
    raise AttributeError(f"module 'anygpu' has no attribute {name!r}")
