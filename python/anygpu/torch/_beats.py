"""Progress beats for `anygpu run --debug-hangs`: with ANYGPU_HANG_DIR set, each rank keeps one
fixed-size line in DIR/rank-<RANK>.beat, rewritten in place (one pwrite) at every optimizer
step, backward and collective of anygpu.torch, and dumps its Python stacks (faulthandler, every
thread) into DIR/stacks-rank-<RANK>.txt when it receives the signal the line names. The format
is read by src/launch/hang_beats.cc. Without the variable the hooks are the functions
themselves: nothing is added to any call.
"""
import faulthandler
import functools
import os
import signal
import time

from .._environment import integer, value

_ENABLED = bool(os.environ.get("ANYGPU_HANG_DIR"))
_SIZE = 512  # bytes per line, padding included: one pwrite, one page
# A real-time signal nobody else claims: SIGUSR1/SIGUSR2 are Slurm's and the user's (anygpu run
# forwards them), and their default would end a process that registered nothing.
_SIGNAL = signal.SIGRTMIN + 4 if hasattr(signal, "SIGRTMIN") else None


class _Writer:
    def __init__(self):
        folder = value("ANYGPU_HANG_DIR")["value"]
        self.rank = integer("RANK", 0)
        self.local_rank = integer("LOCAL_RANK", 0)
        self.threshold = integer("ANYGPU_HANG_SECONDS", 300)
        self.device = _device_name(self.local_rank)
        self.count = self.seq = 0
        self.collective = "-"
        self.fd = os.open(os.path.join(folder, f"rank-{self.rank}.beat"),
                          os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        # Kept open for the process's life: faulthandler writes into it from its signal handler.
        self.stacks = open(os.path.join(folder, f"stacks-rank-{self.rank}.txt"), "w")
        signum = 0
        if _SIGNAL is not None:
            faulthandler.register(_SIGNAL, file=self.stacks, all_threads=True, chain=False)
            signum = int(_SIGNAL)
        self.head = (f"anygpu-beat/1 rank={self.rank} local_rank={self.local_rank} "
                     f"pid={os.getpid()} device={self.device} signal={signum} "
                     f"threshold_s={self.threshold}")

    def beat(self, event: str, op: str) -> None:
        self.count += 1
        if event == "enter":
            self.seq += 1
            self.collective = op
        line = (f"{self.head} count={self.count} seq={self.seq} time_ns={time.time_ns()} "
                f"event={event} op={op} collective={self.collective}")
        os.pwrite(self.fd, line.ljust(_SIZE - 1).encode()[:_SIZE - 1] + b"\n", 0)


def _device_name(local_rank: int) -> str:
    """The PCI bus id the selection gave this rank, else the torch device type."""
    devices = [d for d in os.environ.get("ANYGPU_DEVICES", "").split(",") if d]
    if devices:
        return devices[local_rank] if local_rank < len(devices) else ",".join(devices)
    return os.environ.get("ANYGPU_TORCH_DEVICE") or "cpu"


_writer = None


def _get():
    global _writer
    if _writer is None:
        _writer = _Writer()
        import atexit
        atexit.register(lambda: _writer.beat("exit", "exit"))
    return _writer


def beat(op: str = "mark", event: str = "mark") -> None:
    """One beat: call it in a training loop anygpu.torch does not step for you (a no-op
    without `anygpu run --debug-hangs`)."""
    if _ENABLED:
        _get().beat(event, op.replace(" ", "_") or "mark")


def collective(name: str):
    """Decorator: beats when a collective is entered and when it returns."""
    def wrap(fn):
        if not _ENABLED:
            return fn

        @functools.wraps(fn)
        def traced(*args, **kwargs):
            w = _get()
            w.beat("enter", name)
            result = fn(*args, **kwargs)
            w.beat("leave", name)
            return result
        return traced
    return wrap


def event(name: str):
    """Decorator: one beat (event NAME) each time the function is called."""
    def wrap(fn):
        if not _ENABLED:
            return fn

        @functools.wraps(fn)
        def traced(*args, **kwargs):
            _get().beat(name, name)
            return fn(*args, **kwargs)
        return traced
    return wrap
