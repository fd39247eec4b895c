"""Optimizer steps through the loss scaler, and gradient accumulation.

The optimizer prepare() returns is the user's optimizer behind a thin wrapper, so that both
accelerate-style `optimizer.step()` and `acc.step(optimizer)` unscale and step through the
GradScaler under float16, and skip the step (and zero_grad) while gradients accumulate.
"""
import torch

from . import _beats


class Accumulation:
    """Where the training loop is inside a group of accumulated micro-batches."""

    def __init__(self, steps: int):
        if not isinstance(steps, int) or steps < 1:
            raise ValueError(f"gradient_accumulation_steps={steps!r}: must be an integer >= 1")
        self.steps = steps
        self.micro = 0  # micro-batches since the last optimizer step
        self.sync_gradients = True
        self.pending = False  # gradients of unfinished micro-batches that zero_grad must keep
        self.unscaled = set()  # ids of optimizers unscaled since the last step

    def enter(self, end_of_loader: bool) -> bool:
        self.micro += 1
        self.sync_gradients = self.micro >= self.steps or end_of_loader
        if self.sync_gradients:
            self.micro = 0
        return self.sync_gradients

    def state_dict(self) -> dict:
        return {"micro": self.micro, "pending": self.pending}

    def load_state_dict(self, state: dict) -> None:
        self.micro, self.pending = int(state["micro"]), bool(state["pending"])


@_beats.event("step")
def step(optimizer, scaler, acc: Accumulation, closure=None):
    """One optimizer step: through the scaler under float16, skipped mid-accumulation."""
    if not acc.sync_gradients:
        return None
    acc.pending = False
    acc.unscaled.discard(id(optimizer))
    if scaler is None:
        return optimizer.step() if closure is None else optimizer.step(closure)
    if closure is not None:
        raise ValueError("anygpu: GradScaler.step() does not take a closure")
    result = scaler.step(optimizer)
    scaler.update()
    return result


def unscale(optimizer, scaler, acc: Accumulation) -> None:
    """Divides the gradients by the loss scale once per step (clipping needs true values)."""
    if scaler is None or id(optimizer) in acc.unscaled:
        return
    scaler.unscale_(optimizer)
    acc.unscaled.add(id(optimizer))


class PreparedOptimizer(torch.optim.Optimizer):
    """The user's optimizer; step() and zero_grad() follow the scaler and the accumulation.

    param_groups, state, defaults, state_dict() and load_state_dict() are the wrapped
    optimizer's own, so LR schedulers built on either object see the same groups.
    """

    def __init__(self, optimizer: torch.optim.Optimizer, scaler, accumulation: Accumulation):
        # torch.optim.Optimizer.__init__ is not called: the wrapped optimizer holds the state.
        self.optimizer, self.scaler, self.accumulation = optimizer, scaler, accumulation

    @property
    def param_groups(self):
        return self.optimizer.param_groups

    @param_groups.setter
    def param_groups(self, groups):
        self.optimizer.param_groups = groups

    @property
    def state(self):
        return self.optimizer.state

    @state.setter
    def state(self, state):
        self.optimizer.state = state

    @property
    def defaults(self):
        return self.optimizer.defaults

    @defaults.setter
    def defaults(self, defaults):
        self.optimizer.defaults = defaults

    def step(self, closure=None):
        return step(self.optimizer, self.scaler, self.accumulation, closure)

    def zero_grad(self, set_to_none: bool = None):
        if self.accumulation.pending:  # gradients of this group's earlier micro-batches
            return
        if set_to_none is None:
            self.optimizer.zero_grad()
        else:
            self.optimizer.zero_grad(set_to_none=set_to_none)

    def state_dict(self):
        return self.optimizer.state_dict()

    def load_state_dict(self, state_dict):
        self.optimizer.load_state_dict(state_dict)

    def add_param_group(self, param_group):
        self.optimizer.add_param_group(param_group)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        return f"PreparedOptimizer({self.optimizer!r})"
