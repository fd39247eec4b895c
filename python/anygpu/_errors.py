"""Exceptions raised by anygpu. Each names what was wrong and where it came from."""


class LibraryNotFoundError(ImportError):
    """libanygpu.so could not be loaded from any place searched."""


class AnygpuError(RuntimeError):
    """The native library answered with an anygpu.error/v1 document.

    `warnings` holds what discovery went on without before the call failed (a malformed sysfs
    file, a library that crashed), often the reason it failed."""

    def __init__(self, message: str, exit_code: int, warnings=()):
        super().__init__(message)
        self.exit_code = exit_code
        self.warnings = list(warnings)


class BadInputError(AnygpuError, ValueError):
    """A configuration file or option was malformed (CLI exit code 2)."""


class InvalidEnvironmentError(BadInputError):
    """An ANYGPU_* (or torchrun/Slurm) environment variable holds a value anygpu cannot use; the
    message is the one the CLI prints (exit code 2)."""

    def __init__(self, message: str, exit_code: int = 2, warnings=()):
        super().__init__(message, exit_code, warnings)


class HostError(AnygpuError):
    """The host lacks what was required, e.g. an explicit backend that matches nothing (3)."""


class ContractError(AnygpuError):
    """The runtime contract (runtime-spec.yaml) does not hold on this host (1)."""


def error_for(message: str, exit_code: int, warnings=(), variable=None) -> AnygpuError:
    if variable is not None:  # the library refused an environment variable
        return InvalidEnvironmentError(message, exit_code, warnings)
    cls = {1: ContractError, 2: BadInputError, 3: HostError}.get(exit_code, AnygpuError)
    return cls(message, exit_code, warnings)


# Tracebacks name the public module, where users import these from.
for _cls in (LibraryNotFoundError, InvalidEnvironmentError, AnygpuError, BadInputError, HostError,
             ContractError):
    _cls.__module__ = "anygpu"
