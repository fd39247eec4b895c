"""Collectives over the default process group, the same on every vendor's backend; with one
process each is the identity. Nested lists, tuples and dicts of tensors are walked."""
import contextlib

import torch

from . import _beats
from ._sharding import ALL


def distributed() -> bool:
    dist = torch.distributed
    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


def _walk(obj, fn):
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_walk(o, fn) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_walk(o, fn) for o in obj)
    if isinstance(obj, dict):
        return type(obj)({k: _walk(v, fn) for k, v in obj.items()})
    raise TypeError(f"anygpu: cannot send a {type(obj).__name__} through a collective; use "
                    "tensors (or lists/tuples/dicts of them), or gather_object()")


def _tensors_only(obj) -> bool:
    if isinstance(obj, torch.Tensor):
        return True
    if isinstance(obj, (list, tuple)):
        return bool(obj) and all(_tensors_only(o) for o in obj)
    if isinstance(obj, dict):
        return bool(obj) and all(_tensors_only(v) for v in obj.values())
    return False


def _sizes(t: torch.Tensor, dim: int, extra: int = 0):
    """Every rank's size along `dim` (and one more integer per rank)."""
    mine = torch.tensor([t.shape[dim], extra], dtype=torch.int64, device=t.device)
    out = [torch.empty_like(mine) for _ in range(torch.distributed.get_world_size())]
    torch.distributed.all_gather(out, mine)
    return [(int(o[0]), int(o[1])) for o in out]


def _pad(t: torch.Tensor, size: int, dim: int, value, first: bool) -> torch.Tensor:
    if t.shape[dim] == size:
        return t
    shape = list(t.shape)
    shape[dim] = size - t.shape[dim]
    filler = t.new_full(shape, value)
    return torch.cat([filler, t] if first else [t, filler], dim=dim)


def _gather_tensor(t: torch.Tensor, duplicates: int = 0) -> torch.Tensor:
    t = t.detach()
    if t.dim() == 0:
        t = t[None]
    t = t.contiguous()
    sizes = _sizes(t, 0, duplicates)
    longest = max(s for s, _ in sizes)
    padded = _pad(t, longest, 0, 0, False)
    parts = [torch.empty_like(padded) for _ in sizes]
    torch.distributed.all_gather(parts, padded)
    kept = []
    for part, (size, dups) in zip(parts, sizes):
        keep = 0 if dups == ALL else size - dups
        kept.append(part[:keep])
    return torch.cat(kept, dim=0)


@_beats.collective("gather")
def gather(obj):
    """Every rank's tensors concatenated along the first dimension, in rank order (sizes may
    differ between ranks); a 0-d tensor becomes one element per rank."""
    if not distributed():
        return obj
    return _walk(obj, _gather_tensor)


@_beats.collective("gather_object")
def gather_object(obj) -> list:
    """Every rank's picklable object, in rank order (a list of one for one process)."""
    if not distributed():
        return [obj]
    out = [None] * torch.distributed.get_world_size()
    torch.distributed.all_gather_object(out, obj)
    return out


@_beats.collective("gather_dropping")
def gather_dropping(obj, duplicates: int):
    """gather() that drops, from each rank, the trailing samples that repeat earlier ones."""
    if not distributed():
        return obj
    if _tensors_only(obj):
        return _walk(obj, lambda t: _gather_tensor(t, duplicates))
    parts = gather_object(list(obj))
    per_rank = gather_object(duplicates)
    out = []
    for part, dups in zip(parts, per_rank):
        out.extend(part[:0 if dups == ALL else len(part) - dups])
    return out


@_beats.collective("reduce")
def reduce(obj, reduction: str = "sum"):
    """The element-wise sum, mean or max over all processes; inputs are not modified."""
    if reduction == "none":
        raise ValueError("reduction='none': accelerate's 'none' sums across processes; anygpu "
                         "calls that reduction='sum'")
    if reduction not in ("sum", "mean", "max"):
        raise ValueError(f"reduction={reduction!r}: use 'sum', 'mean' or 'max'")
    if not distributed():
        return obj
    op = torch.distributed.ReduceOp.MAX if reduction == "max" else torch.distributed.ReduceOp.SUM

    def one(t):
        t = t.detach().clone()
        torch.distributed.all_reduce(t, op)
        return t / torch.distributed.get_world_size() if reduction == "mean" else t

    return _walk(obj, one)


@_beats.collective("broadcast")
def broadcast(obj, from_process: int = 0):
    """`obj` as process `from_process` has it: tensors (nested) or any picklable object."""
    if not distributed():
        return obj
    try:
        def one(t):
            t = t.detach().clone().contiguous()
            torch.distributed.broadcast(t, src=from_process)
            return t

        return _walk(obj, one)
    except TypeError:
        box = [obj]
        torch.distributed.broadcast_object_list(box, src=from_process)
        return box[0]


@_beats.collective("pad_across_processes")
def pad_across_processes(obj, dim: int = 0, pad_index=0, pad_first: bool = False):
    """Tensors padded with `pad_index` along `dim` to the longest size any process has."""
    if not distributed():
        return obj

    def one(t):
        if t.dim() <= dim:
            return t
        longest = max(s for s, _ in _sizes(t, dim))
        return _pad(t, longest, dim, pad_index, pad_first)

    return _walk(obj, one)


@_beats.collective("wait_for_everyone")
def wait_for_everyone() -> None:
    """A barrier: returns once every process has reached it (a no-op for one process)."""
    if distributed():
        torch.distributed.barrier()


@contextlib.contextmanager
def first(is_first: bool):
    """The body runs on the process(es) where is_first holds, then on all others."""
    if not is_first:
        wait_for_everyone()
    try:
        yield
    finally:
        if is_first:
            wait_for_everyone()


def _shares(n: int, rank: int, world: int):
    base, extra = divmod(n, world)
    start = rank * base + min(rank, extra)
    return start, start + base + (1 if rank < extra else 0), base + (1 if extra else 0)


def _split(inputs, rank: int, world: int, padding: bool):
    if isinstance(inputs, dict):
        return {k: _split(v, rank, world, padding) for k, v in inputs.items()}
    start, end, longest = _shares(len(inputs), rank, world)
    part = inputs[start:end]
    if padding and len(part) < longest and len(inputs):
        filler = inputs[-1:]
        missing = longest - len(part)
        if isinstance(part, torch.Tensor):
            part = torch.cat([part] + [filler] * missing)
        else:
            part = part + type(part)(filler) * missing
    return part


@contextlib.contextmanager
def split_between_processes(inputs, rank: int, world: int, apply_padding: bool = False):
    """This process's contiguous share of a list, tuple, tensor or dict of them (the first
    len % world processes get one more); apply_padding repeats the last item to equalize."""
    yield _split(inputs, rank, world, apply_padding)
