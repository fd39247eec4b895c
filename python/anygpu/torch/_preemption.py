"""Preemption noticed, not fatal: SIGTERM (Slurm's preemption and `scontrol requeue`, a
Kubernetes eviction, torchrun's agent passing either on) only sets a flag. The training loop
asks at a step boundary; every process gets the same answer, so they save together and exit.

    with agt.Preemption() as preemption:
        for x, y in loader:
            ...
            if preemption.requested():     # a collective: ask at the same steps everywhere
                acc.save_state("ckpt")
                sys.exit(0)                # Slurm requeues (sbatch --requeue); load_state resumes
"""
import signal

import torch

from . import _collectives as coll
from ._device import device


class Preemption:
    def __init__(self, signals=(signal.SIGTERM,)):
        self.signals = tuple(signals)
        self.received = None  # the signal number, once one came
        self._previous = {s: signal.signal(s, self._note) for s in self.signals}

    def _note(self, signum, frame):
        # Only a flag: saving inside a handler could interrupt a collective half-way.
        self.received = signum

    def requested(self) -> bool:
        """True on every process once any of them received one of the signals."""
        flag = 0 if self.received is None else 1
        if not coll.distributed():
            return bool(flag)
        dev = device()
        where = dev if isinstance(dev, torch.device) else "cpu"
        return bool(coll.reduce(torch.tensor([flag], device=where)).item())

    def close(self) -> None:
        """Restores the handlers that were there before."""
        for s, previous in self._previous.items():
            signal.signal(s, previous)
        self._previous = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
