"""Accelerator: the training-loop glue (device, precision, process group, data sharding)."""
import builtins

import torch
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler

from ._amp import amp_dtype, autocast, grad_scaler
from ._device import device, empty_cache, synchronize
from ._distributed import init_distributed, ranks
from ._warn import warn_once

_PRECISIONS = {True: None, "auto": None, "bf16": torch.bfloat16, "fp16": torch.float16}


class Accelerator:
    """One object a training loop asks for device, precision and distribution.

        acc = Accelerator()
        model, optimizer, loader = acc.prepare(model, optimizer, loader)
        for x, y in loader:                  # batches arrive on acc.device
            with acc.autocast():
                loss = loss_fn(model(x), y)
            acc.backward(loss)
            acc.step(optimizer)
    """

    def __init__(self, mixed_precision="auto"):
        self.distributed = init_distributed()
        self.device = device()
        r = ranks()
        self.rank, self.world_size, self.local_rank = r.rank, r.world_size, r.local_rank
        self.dist_backend = torch.distributed.get_backend() if self.distributed else None
        if mixed_precision in (False, None, "no", "fp32"):
            self._dtype = None
        elif mixed_precision in (True, "auto") and self.device.type == "cpu":
            # CPU autocast pays off only with native bf16 units (AMX), and some torch releases
            # (1.13) do not cover every op (LayerNorm). Ask for "bf16" explicitly to use it.
            self._dtype = None
        elif mixed_precision in _PRECISIONS:
            self._dtype = amp_dtype(self.device.type, _PRECISIONS[mixed_precision])
        elif isinstance(mixed_precision, torch.dtype):
            self._dtype = amp_dtype(self.device.type, mixed_precision)
        else:
            raise ValueError(f"mixed_precision={mixed_precision!r}: use 'auto', 'bf16', 'fp16', "
                             "'fp32', a torch.dtype, True or False")
        self.precision = {torch.bfloat16: "bf16", torch.float16: "fp16"}.get(self._dtype, "fp32")
        self.scaler = grad_scaler(self._dtype) if self._dtype is torch.float16 else None

    @property
    def is_main_process(self) -> bool:
        return self.rank == 0

    def autocast(self):
        """Mixed precision for the forward pass (a no-op context in full precision)."""
        return autocast(self._dtype, device_type=self.device.type, enabled=self._dtype is not None)

    def prepare(self, *objects):
        """Models to the device (DistributedDataParallel across processes), DataLoaders sharded
        with a DistributedSampler and yielding batches on the device; anything else unchanged."""
        out = tuple(self._prepare_one(o) for o in objects)
        return out[0] if len(out) == 1 else out

    def _prepare_one(self, obj):
        if isinstance(obj, torch.nn.Module):
            obj = obj.to(self.device)
            if self.distributed:
                ids = [self.device.index] if self.device.type != "cpu" else None
                obj = torch.nn.parallel.DistributedDataParallel(obj, device_ids=ids)
            return obj
        if isinstance(obj, DataLoader):
            return DeviceLoader(self._shard(obj), self.device)
        return obj

    def _shard(self, loader: DataLoader) -> DataLoader:
        if not self.distributed or isinstance(loader.sampler, DistributedSampler):
            return loader
        iterable = isinstance(loader.dataset, torch.utils.data.IterableDataset)
        if loader.batch_size is None or iterable:
            warn_once("shard", "anygpu: a DataLoader with a custom batch sampler or an iterable "
                      "dataset is not sharded; every process sees all of its data")
            return loader
        sampler = DistributedSampler(loader.dataset, num_replicas=self.world_size, rank=self.rank,
                                     shuffle=isinstance(loader.sampler, RandomSampler),
                                     drop_last=loader.drop_last)
        extra = {}
        if loader.num_workers > 0:  # torch rejects these without worker processes
            extra = {"prefetch_factor": loader.prefetch_factor,
                     "persistent_workers": loader.persistent_workers}
        return DataLoader(loader.dataset, batch_size=loader.batch_size, sampler=sampler,
                          num_workers=loader.num_workers, collate_fn=loader.collate_fn,
                          pin_memory=loader.pin_memory, drop_last=loader.drop_last,
                          timeout=loader.timeout, worker_init_fn=loader.worker_init_fn,
                          multiprocessing_context=loader.multiprocessing_context,
                          generator=loader.generator, **extra)

    def backward(self, loss) -> None:
        (self.scaler.scale(loss) if self.scaler is not None else loss).backward()

    def step(self, optimizer) -> None:
        """optimizer.step(), through the GradScaler when float16 needs one."""
        if self.scaler is not None:
            self.scaler.step(optimizer)
            self.scaler.update()
        else:
            optimizer.step()

    def synchronize(self) -> None:
        synchronize(self.device)

    def empty_cache(self) -> None:
        empty_cache(self.device)

    def reduce_mean(self, tensor):
        """The mean of `tensor` over all processes (the tensor itself for one process)."""
        if not self.distributed:
            return tensor
        tensor = tensor.detach().clone()
        torch.distributed.all_reduce(tensor)
        return tensor / self.world_size

    def unwrap(self, model):
        """The model inside a DistributedDataParallel wrapper."""
        return getattr(model, "module", model)

    def print(self, *args, **kwargs) -> None:
        if self.is_main_process:
            kwargs.setdefault("flush", True)
            builtins.print(*args, **kwargs)

    def end(self) -> None:
        """Leaves the process group (a no-op for one process)."""
        if self.distributed and torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()
            self.distributed = False


class DeviceLoader:
    """A DataLoader whose batches are moved to the device, and whose DistributedSampler gets a
    new epoch number on every pass (else every epoch shuffles the same way)."""

    def __init__(self, loader: DataLoader, dev: torch.device):
        self.loader, self.device, self._epoch = loader, dev, 0

    def __iter__(self):
        if isinstance(self.loader.sampler, DistributedSampler):
            self.loader.sampler.set_epoch(self._epoch)
        self._epoch += 1
        non_blocking = bool(self.loader.pin_memory)
        for batch in self.loader:
            yield _to(batch, self.device, non_blocking)

    def __len__(self):
        return len(self.loader)

    def __getattr__(self, name):
        return getattr(self.loader, name)


def _to(batch, dev, non_blocking):
    if isinstance(batch, torch.Tensor):
        return batch.to(dev, non_blocking=non_blocking)
    if isinstance(batch, (list, tuple)) and not hasattr(batch, "_fields"):
        return type(batch)(_to(b, dev, non_blocking) for b in batch)
    if isinstance(batch, tuple):  # namedtuple
        return type(batch)(*(_to(b, dev, non_blocking) for b in batch))
    if isinstance(batch, dict):
        return {k: _to(v, dev, non_blocking) for k, v in batch.items()}
    return batch
