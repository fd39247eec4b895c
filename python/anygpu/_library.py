"""Finds and binds libanygpu.so through ctypes (no compiled extension module).

Search order: $ANYGPU_LIBRARY (when set, the only candidate: an explicit choice must not fall
back silently), libanygpu.so beside this package (the wheel puts it there), the library of the
installation this package belongs to (_installed.py, written by `cmake --install`: relative to
this directory, then beneath the install prefix), the build tree of a source checkout
(build/libanygpu.so), then the system linker path: the versioned soname first (installed
packages ship only libanygpu.so.0; the unversioned link is a development file).
"""
import ctypes
import os

from ._errors import LibraryNotFoundError, error_for

_SONAME = "libanygpu.so"
_VERSIONED_SONAME = "libanygpu.so.0"  # SOVERSION in cmake/version.cmake
# The table's row for ANYGPU_LIBRARY (util/env_vars.cc), applied here because it is read before
# any library can judge it; tests/python/test_environment.py holds the two equal.
_LIBRARY_EXPECTED = ("expected a path to libanygpu.so, or a file name the dynamic loader finds "
                     "(set but blank: an error)")
_BLANK = " \t\n\r\v\f"  # what the table trims


def refused_library(path: str):
    """The table's refusal of an ANYGPU_LIBRARY value, or None when it is a name to try."""
    if path.strip(_BLANK):
        return None
    shown = "".join({"\n": "\\n", "\t": "\\t"}.get(c) or
                    (f"\\x{ord(c):02x}" if ord(c) < 0x20 or c == "\x7f" else c) for c in path)
    return f'ANYGPU_LIBRARY="{shown}": {_LIBRARY_EXPECTED}'


_SYMBOLS = ("anygpu_detect_json", "anygpu_select_json", "anygpu_environment_json", "anygpu_free",
            "anygpu_version")


def candidates():
    """Yields the places to try, in order (lazily: the last one runs ldconfig/gcc)."""
    explicit = os.environ.get("ANYGPU_LIBRARY")
    if explicit is not None:
        yield explicit
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, _SONAME)
    installed = _installation()
    if installed is not None:
        relative = os.path.normpath(os.path.join(here, installed.LIBRARY_RELATIVE))
        yield relative
        if installed.LIBRARY != relative:
            yield installed.LIBRARY
    else:  # a source checkout: python/anygpu beside build/
        yield os.path.join(os.path.dirname(os.path.dirname(here)), "build", _SONAME)
    yield _VERSIONED_SONAME  # LD_LIBRARY_PATH, ld.so.cache, the default directories
    yield _SONAME
    import ctypes.util  # only here: it imports shutil and runs ldconfig; plain imports skip it

    found = ctypes.util.find_library("anygpu")
    if found and found != _SONAME:
        yield found


def _installation():
    """The note `cmake --install` leaves beside the package; None in a source tree or a wheel."""
    try:
        from . import _installed
    except ImportError:
        return None
    return _installed


def _advice() -> str:
    installed = _installation()
    if installed is not None:
        return (f"This package was installed with prefix {installed.PREFIX}: install the library "
                "there as well (make install, or the libanygpu0 package), or point "
                "ANYGPU_LIBRARY at it.")
    if os.environ.get("ANYGPU_LIBRARY") is not None:
        return "Point ANYGPU_LIBRARY at libanygpu.so (or unset it to search)."
    return "Build it (make build), install it, or point ANYGPU_LIBRARY at it."


def _bind(lib: ctypes.CDLL) -> ctypes.CDLL:
    for name in ("anygpu_detect_json", "anygpu_select_json"):
        fn = getattr(lib, name)
        fn.argtypes = [ctypes.c_char_p]
        fn.restype = ctypes.c_void_p  # a pointer we own and must hand back to anygpu_free
    lib.anygpu_free.argtypes = [ctypes.c_void_p]
    lib.anygpu_free.restype = None
    lib.anygpu_environment_json.argtypes = [ctypes.c_char_p]
    lib.anygpu_environment_json.restype = ctypes.c_void_p
    lib.anygpu_version.argtypes = []
    lib.anygpu_version.restype = ctypes.c_char_p
    return lib


def load() -> ctypes.CDLL:
    tried = []
    for path in candidates():
        refused = refused_library(path)
        if refused is not None:
            tried.append(refused)
            continue
        is_path = os.sep in path
        if is_path and not os.path.exists(path):
            tried.append(f"{path} (not found)")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path} ({e})")
            continue
        missing = [s for s in _SYMBOLS if not hasattr(lib, s)]
        if missing:
            tried.append(f"{path} (not libanygpu: lacks {', '.join(missing)})")
            continue
        return _bind(lib)
    raise LibraryNotFoundError(
        "anygpu: cannot load libanygpu.so; tried:\n  " + "\n  ".join(tried) + "\n" + _advice(),
        name="libanygpu")


class Library:
    """One loaded libanygpu.so; each call is a JSON document in, a JSON document out."""

    def __init__(self, lib: ctypes.CDLL):
        self._lib = lib
        self.version = lib.anygpu_version().decode()

    def call(self, function: str, options: dict) -> dict:
        import json  # on first use: `import anygpu` stays cheap
        raw = getattr(self._lib, function)(json.dumps(options).encode() if options else None)
        if not raw:
            raise MemoryError(f"anygpu: {function} returned no document")
        try:
            text = ctypes.string_at(raw).decode()
        finally:
            self._lib.anygpu_free(raw)
        doc = json.loads(text)
        if doc.get("schema") == "anygpu.error/v1":
            raise error_for(doc.get("error", "unknown error"), int(doc.get("exit_code", 1)),
                            doc.get("warnings", ()), doc.get("variable"))
        return doc
