"""Warnings anygpu.torch gives once per process: a fallback repeated every step is noise."""
import os
import sys
import warnings


class AnygpuWarning(UserWarning):
    """anygpu fell back to something slower (CPU, eager mode, full precision) and says why."""


_given = set()
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _caller_level() -> int:
    # The warning points at the user's line that called anygpu, not at anygpu's internals.
    level, frame = 1, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def warn_once(key: str, message: str) -> None:
    if key in _given:
        return
    _given.add(key)
    warnings.warn(message, AnygpuWarning, stacklevel=_caller_level())
