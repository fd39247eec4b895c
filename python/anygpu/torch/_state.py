"""Random-number state and checkpoint directories for save_state()/load_state().

A checkpoint directory appears complete or not at all: every process writes into a staging
directory beside it (rank 0 the shared objects, each rank its own RNG file), and after a
barrier rank 0 swaps the staging directory into place (renameat2 RENAME_EXCHANGE where the
kernel has it, two renames otherwise) and removes the previous one.
"""
import ctypes
import io
import json
import os
import pickle
import random
import secrets
import shutil
import sys

import torch

from . import _collectives as coll

SCHEMA = "anygpu.state/v1"
MANIFEST = "anygpu-state.json"


def _device_module(dev):
    return None if dev is None or dev.type == "cpu" else getattr(torch, dev.type, None)


def rng_state(dev) -> dict:
    """Python's, NumPy's (when imported), torch's CPU and the device's generator states, in
    types torch.load(weights_only=True) accepts (NumPy's key array travels as a tensor)."""
    state = {"python": random.getstate(), "torch": torch.get_rng_state()}
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        kind, key, pos, has_gauss, cached = numpy.random.get_state()
        state["numpy"] = (kind, torch.tensor(key.astype("int64")), int(pos), int(has_gauss),
                          float(cached))
    module = _device_module(dev)
    if module is not None and hasattr(module, "get_rng_state"):
        state["device"] = (dev.type, module.get_rng_state())
    return state


def set_rng_state(state: dict, dev) -> None:
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if "numpy" in state:
        import numpy
        kind, key, pos, has_gauss, cached = state["numpy"]
        numpy.random.set_state((kind, key.numpy().astype(numpy.uint32), pos, has_gauss, cached))
    if "device" in state:
        device_type, value = state["device"]
        module = _device_module(dev)
        if module is None or dev.type != device_type:
            raise ValueError(f"anygpu: the checkpoint holds a {device_type!r} RNG state; this "
                             f"process runs on {dev}")
        module.set_rng_state(value)


def set_seed(seed: int, dev=None) -> None:
    """Seeds Python, NumPy (when installed), torch's CPU and every device generator."""
    seed = int(seed)
    random.seed(seed)
    try:
        import numpy
    except ImportError:
        numpy = None
    if numpy is not None:
        numpy.random.seed(seed % 2**32)
    torch.manual_seed(seed)  # CPU and, where torch has it, CUDA
    module = _device_module(dev)
    if module is not None and hasattr(module, "manual_seed_all"):
        module.manual_seed_all(seed)


def _fsync_write(path: str, save) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "wb") as f:
        save(f)
        f.flush()
        os.fsync(f.fileno())


def write_torch(directory: str, name: str, obj) -> None:
    _fsync_write(os.path.join(directory, name), lambda f: torch.save(obj, f))


def write_json(directory: str, name: str, obj) -> None:
    text = json.dumps(obj, indent=2, sort_keys=True).encode() + b"\n"
    _fsync_write(os.path.join(directory, name), lambda f: f.write(text))


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: str, b: str) -> bool:
    """Atomically swaps two paths (Linux renameat2); False where unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0


def _partials(directory: str):
    parent, name = os.path.split(directory)
    prefix = f".{name}.partial-"
    try:
        entries = os.listdir(parent)
    except FileNotFoundError:
        return []
    return sorted(os.path.join(parent, e) for e in entries if e.startswith(prefix))


def recover(directory: str) -> None:
    """What a save killed part-way left beside `directory`, settled (main process only).

    A staging directory `.NAME.partial-T` is complete only once its swap began, which on file
    systems without RENAME_EXCHANGE (NFS, where checkpoints often live) renames the previous
    checkpoint to `.NAME.partial-T.old` first. So: with `.old` present and NAME missing, the
    kill fell between the two renames and the staging directory is the newest checkpoint; with
    both present, only the old copy's removal was left. Every other partial directory is an
    interrupted save and is removed; the last good checkpoint is never touched."""
    directory = os.path.abspath(os.fspath(directory))
    partials = _partials(directory)
    for old in [p for p in partials if p.endswith(".old")]:
        staging = old[:-len(".old")]
        if not os.path.isdir(directory):
            os.rename(staging if os.path.isdir(staging) else old, directory)
        shutil.rmtree(old, ignore_errors=True)
    for leftover in _partials(directory):
        shutil.rmtree(leftover, ignore_errors=True)
    if partials:
        _fsync_dir(os.path.dirname(directory))


def begin(directory: str, is_main: bool) -> str:
    """The staging directory every process writes into (created by the main process, after
    settling what an interrupted save left)."""
    directory = os.path.abspath(os.fspath(directory))
    parent, name = os.path.split(directory)
    if os.path.lexists(directory) and not os.path.isdir(directory):
        raise NotADirectoryError(f"anygpu: {directory} exists and is not a directory")
    staging = None
    if is_main:
        os.makedirs(parent, exist_ok=True)
        recover(directory)
        staging = os.path.join(parent, f".{name}.partial-{secrets.token_hex(6)}")
        os.mkdir(staging, 0o755)
    return coll.broadcast(staging)


def commit(staging: str, directory: str, is_main: bool) -> None:
    """Moves the staging directory into place once every process has written its part."""
    directory = os.path.abspath(os.fspath(directory))
    coll.wait_for_everyone()
    if is_main:
        for entry in os.listdir(staging):
            if entry.endswith(".pt") or entry == MANIFEST:
                continue
            raise RuntimeError(f"anygpu: unexpected {entry} in {staging}")
        _fsync_dir(staging)
        if os.path.isdir(directory) and _exchange(staging, directory):
            shutil.rmtree(staging)  # now holds the previous checkpoint
        elif os.path.isdir(directory):
            old = staging + ".old"
            os.rename(directory, old)
            os.rename(staging, directory)
            shutil.rmtree(old)
        else:
            os.rename(staging, directory)
        _fsync_dir(os.path.dirname(directory))
    coll.wait_for_everyone()


def abandon(staging: str, is_main: bool) -> None:
    if is_main and staging and os.path.isdir(staging):
        shutil.rmtree(staging, ignore_errors=True)


def read_manifest(directory: str) -> dict:
    path = os.path.join(os.fspath(directory), MANIFEST)
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except FileNotFoundError:
        raise FileNotFoundError(f"anygpu: {path} not found: not a directory save_state() "
                                "wrote") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"anygpu: {path}:{e.lineno}:{e.colno}: {e.msg}") from None
    if not isinstance(manifest, dict) or manifest.get("schema") != SCHEMA:
        raise ValueError(f"anygpu: {path}: schema is not {SCHEMA}")
    return manifest


_safe_reader = None


def safe_reader_works() -> bool:
    """Whether torch.load(weights_only=True) reads what optimizers hold: torch 1.13's reader
    has the flag but refuses Python floats (pickle's BINFLOAT), so every optimizer fails it."""
    global _safe_reader
    if _safe_reader is None:
        buffer = io.BytesIO()
        torch.save({"lr": 0.5, "betas": (0.9, 0.999), "step": torch.ones(1)}, buffer)
        buffer.seek(0)
        try:
            torch.load(buffer, weights_only=True)
            _safe_reader = True
        except (pickle.UnpicklingError, TypeError, RuntimeError):
            _safe_reader = False
    return _safe_reader


def read_torch(directory: str, name: str, map_location="cpu", weights_only=None):
    """torch.load of one checkpoint file, by default reading only tensors and plain containers
    so that a checkpoint cannot run code (torch 2.6 made that torch.load's default), wherever
    this torch's reader can (safe_reader_works). weights_only=False is for checkpoints of
    trusted origin holding other objects."""
    path = os.path.join(os.fspath(directory), name)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"anygpu: {path} missing from the checkpoint")
    if weights_only is None:
        weights_only = safe_reader_works()
    try:
        return torch.load(path, map_location=map_location, weights_only=weights_only)
    except pickle.UnpicklingError as e:
        if not weights_only:
            raise
        first = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
        raise ValueError(f"anygpu: {path} holds objects other than tensors and plain "
                         f"containers ({first}); load_state(..., weights_only=False) loads it "
                         "if you trust where it came from") from None
