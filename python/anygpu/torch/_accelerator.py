"""Accelerator: the training-loop glue (device, precision, process group, data sharding,
accumulation, collectives, checkpoints)."""
import builtins
import contextlib
import gc

import torch
from torch.utils.data import DataLoader

from . import _beats
from . import _collectives as coll
from . import _state
from ._amp import amp_dtype, autocast, grad_scaler
from ._device import device, empty_cache, memory_stats, synchronize
from ._distributed import init_distributed, leave as leave_group, ranks
from ._loader import PreparedLoader, Progress
from ._optim import Accumulation, PreparedOptimizer, step as optimizer_step, unscale
from ._warn import warn_once

_PRECISIONS = {True: None, "auto": None, "bf16": torch.bfloat16, "fp16": torch.float16}


def _is_scheduler(obj) -> bool:
    sched = torch.optim.lr_scheduler
    bases = tuple(c for c in (getattr(sched, "LRScheduler", None),
                              getattr(sched, "_LRScheduler", None),
                              getattr(sched, "ReduceLROnPlateau", None)) if c is not None)
    return isinstance(obj, bases)


class Accelerator:
    """One object a training loop asks for device, precision and distribution.

        acc = Accelerator()
        model, optimizer, loader = acc.prepare(model, optimizer, loader)
        for x, y in loader:                  # batches arrive on acc.device
            with acc.accumulate(model), acc.autocast():
                loss = loss_fn(model(x), y)
            acc.backward(loss)
            optimizer.step()                 # or acc.step(optimizer)
            optimizer.zero_grad()
    """

    def __init__(self, mixed_precision="auto", gradient_accumulation_steps: int = 1,
                 seed=None):
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
        self._accumulation = Accumulation(gradient_accumulation_steps)
        self._seed = seed
        self._progress = Progress()
        self._models, self._optimizers, self._schedulers, self._loaders = [], [], [], []
        self._custom = []

    # -- who am I -----------------------------------------------------------------------
    @property
    def is_main_process(self) -> bool:
        return self.rank == 0

    @property
    def is_local_main_process(self) -> bool:
        return self.local_rank == 0

    # accelerate's names for the same facts
    num_processes = property(lambda self: self.world_size)
    process_index = property(lambda self: self.rank)
    local_process_index = property(lambda self: self.local_rank)

    @property
    def gradient_accumulation_steps(self) -> int:
        return self._accumulation.steps

    @property
    def sync_gradients(self) -> bool:
        """False while micro-batches accumulate, True on the step that applies them."""
        return self._accumulation.sync_gradients

    # -- preparing ----------------------------------------------------------------------
    def autocast(self):
        """Mixed precision for the forward pass (a no-op context in full precision)."""
        return autocast(self._dtype, device_type=self.device.type, enabled=self._dtype is not None)

    def prepare(self, *objects):
        """Models to the device (DistributedDataParallel across processes); optimizers behind a
        wrapper that steps through the loss scaler; DataLoaders sharded (their own sampler
        kept), yielding batches on the device; LR schedulers registered for save_state()."""
        out = tuple(self._prepare_one(o) for o in objects)
        return out[0] if len(out) == 1 else out

    def _sampler_seed(self) -> int:
        if self._seed is None:  # drawn once from the caller's torch RNG; rank 0's for all
            drawn = int(torch.empty((), dtype=torch.int64).random_().item()) % 2**31
            self._seed = int(coll.broadcast(drawn))
        return self._seed

    def _prepare_one(self, obj):
        if isinstance(obj, torch.nn.Module):
            obj = obj.to(self.device)
            if self.distributed:
                ids = [self.device.index] if self.device.type != "cpu" and \
                    self.device.index is not None else None
                obj = torch.nn.parallel.DistributedDataParallel(obj, device_ids=ids)
            self._models.append(obj)
            return obj
        if isinstance(obj, PreparedOptimizer):
            return obj
        if isinstance(obj, torch.optim.Optimizer):
            wrapped = PreparedOptimizer(obj, self.scaler, self._accumulation)
            self._optimizers.append(wrapped)
            return wrapped
        if isinstance(obj, PreparedLoader):
            return obj
        if isinstance(obj, DataLoader):
            loader = PreparedLoader(obj, device=self.device, rank=self.rank,
                                    world=self.world_size, seed=self._sampler_seed(),
                                    progress=self._progress)
            self._loaders.append(loader)
            return loader
        if _is_scheduler(obj):
            self._schedulers.append(obj)
        return obj

    def register_for_checkpointing(self, *objects) -> None:
        """Objects with state_dict()/load_state_dict() that save_state() should include."""
        for obj in objects:
            if not (hasattr(obj, "state_dict") and hasattr(obj, "load_state_dict")):
                raise TypeError(f"{type(obj).__name__} has no state_dict()/load_state_dict()")
            self._custom.append(obj)

    # -- the step -----------------------------------------------------------------------
    @contextlib.contextmanager
    def accumulate(self, *models):
        """One micro-batch: gradients are kept (and, across processes, not all-reduced) until
        gradient_accumulation_steps of them have run or the loader's last batch came."""
        sync = self._accumulation.enter(self._progress.end_of_loader)
        with contextlib.ExitStack() as stack:
            if not sync:
                for m in models:
                    no_sync = getattr(m, "no_sync", None)  # DDP only; one process has none
                    if no_sync is not None:
                        stack.enter_context(no_sync())
            yield

    def no_sync(self, model):
        """DistributedDataParallel.no_sync() of a prepared model: its gradients are kept locally
        (not all-reduced) inside the block; a no-op context for one process."""
        no_sync = getattr(model, "no_sync", None)
        return no_sync() if no_sync is not None else contextlib.nullcontext()

    @_beats.event("backward")
    def backward(self, loss, **kwargs) -> None:
        """loss.backward(), divided over the accumulated micro-batches and scaled for float16."""
        acc = self._accumulation
        if acc.steps > 1:
            loss = loss / acc.steps
        if not acc.sync_gradients:
            acc.pending = True
        (self.scaler.scale(loss) if self.scaler is not None else loss).backward(**kwargs)

    def step(self, optimizer) -> None:
        """optimizer.step() through the GradScaler (skipped mid-accumulation); a prepared
        optimizer's own step() does the same, once."""
        if isinstance(optimizer, PreparedOptimizer):
            optimizer.step()
        else:
            optimizer_step(optimizer, self.scaler, self._accumulation)

    def unscale_gradients(self, optimizer=None) -> None:
        """Divides float16 gradients by the loss scale (once per step; no-op otherwise)."""
        for opt in [optimizer] if optimizer is not None else self._optimizers:
            inner = opt.optimizer if isinstance(opt, PreparedOptimizer) else opt
            unscale(inner, self.scaler, self._accumulation)

    def clip_grad_norm_(self, parameters, max_norm, norm_type=2.0):
        """Clips the true (unscaled) gradient norm; returns it. Mid-accumulation, where the
        gradients are still partial, nothing is clipped and None is returned."""
        if not self.sync_gradients:
            return None
        self.unscale_gradients()
        return torch.nn.utils.clip_grad_norm_(parameters, max_norm, norm_type=norm_type)

    def clip_grad_value_(self, parameters, clip_value) -> None:
        if self.sync_gradients:
            self.unscale_gradients()
            torch.nn.utils.clip_grad_value_(parameters, clip_value)

    # -- collectives --------------------------------------------------------------------
    def gather(self, obj):
        return coll.gather(obj)

    def gather_for_metrics(self, obj):
        """gather() without the samples the sharded loader repeated to pad the last batches,
        so a metric over the result is the metric over the whole dataset."""
        return coll.gather_dropping(obj, self._progress.duplicates)

    def reduce(self, obj, reduction: str = "sum", scale: float = 1.0):
        """The sum, mean or max over all processes. accelerate's `scale` (applied on XLA only)
        must stay 1.0: multiply the result instead."""
        if scale != 1.0:
            raise ValueError(f"anygpu: reduce(scale={scale!r}) is not supported (accelerate "
                             "applies it on XLA only); multiply the reduced result instead")
        return coll.reduce(obj, reduction)

    def reduce_mean(self, tensor):
        """The mean of `tensor` over all processes (the tensor itself for one process)."""
        return coll.reduce(tensor, "mean")

    def broadcast(self, obj, from_process: int = 0):
        return coll.broadcast(obj, from_process)

    def pad_across_processes(self, obj, dim: int = 0, pad_index=0, pad_first: bool = False):
        return coll.pad_across_processes(obj, dim, pad_index, pad_first)

    def wait_for_everyone(self) -> None:
        coll.wait_for_everyone()

    def main_process_first(self):
        return coll.first(self.is_main_process)

    def local_main_process_first(self):
        return coll.first(self.is_local_main_process)

    def split_between_processes(self, inputs, apply_padding: bool = False):
        return coll.split_between_processes(inputs, self.rank, self.world_size, apply_padding)

    def skip_first_batches(self, dataloader, num_batches: int = 0):
        """accelerate's resume idiom: the prepared loader, its next pass starting after
        `num_batches` batches. After load_state() the loader already resumes where the
        checkpoint stopped; asking for that same position is then a no-op, and another one an
        error (two positions for one pass). The loader itself is returned (not a copy): later
        passes start at the beginning again, as with accelerate's skipping loader."""
        if not isinstance(dataloader, PreparedLoader):
            raise TypeError(f"anygpu: skip_first_batches() takes a loader that prepare() "
                            f"returned, not a {type(dataloader).__name__}")
        dataloader.skip_next_pass(int(num_batches))
        return dataloader

    # -- state --------------------------------------------------------------------------
    def set_seed(self, seed: int, device_specific: bool = False) -> None:
        """Seeds every RNG (Python, NumPy, torch, the device); device_specific adds the rank.
        Loaders prepared afterwards shuffle with this seed too."""
        _state.set_seed(seed + (self.rank if device_specific else 0), self.device)
        self._seed = int(seed)

    def save_state(self, directory) -> None:
        """Writes models (unwrapped), optimizers, schedulers, the GradScaler, loaders' epoch
        and position, registered objects and every process's RNG states to `directory`,
        which appears complete or not at all. Call it on every process."""
        main = self.is_main_process
        staging = _state.begin(directory, main)
        try:
            files = self._shared_state()
            if main:
                for name, value in files.items():
                    _state.write_torch(staging, name, value)
                _state.write_json(staging, _state.MANIFEST, {
                    "schema": _state.SCHEMA, "world_size": self.world_size,
                    "files": sorted(files), "torch": torch.__version__})
            _state.write_torch(staging, f"rng_rank{self.rank}.pt", _state.rng_state(self.device))
        except BaseException:
            _state.abandon(staging, main)
            raise
        _state.commit(staging, directory, main)

    def _shared_state(self) -> dict:
        files = {"accelerator.pt": {"accumulation": self._accumulation.state_dict(),
                                    "seed": self._seed}}
        for kind, objs in (("model", [self.unwrap(m) for m in self._models]),
                           ("optimizer", self._optimizers), ("scheduler", self._schedulers),
                           ("loader", self._loaders), ("custom", self._custom)):
            for i, obj in enumerate(objs):
                files[f"{kind}_{i}.pt"] = obj.state_dict()
        if self.scaler is not None:
            files["scaler.pt"] = self.scaler.state_dict()
        return files

    def load_state(self, directory, weights_only=None) -> None:
        """Restores what save_state() wrote, on every process (each its own RNG states).

        What a save killed part-way left beside `directory` is settled first (the newest
        complete checkpoint kept, partial directories removed). A checkpoint of N processes
        loads on M at an epoch boundary: models, optimizers and schedulers are replicated, the
        ranks beyond N are seeded from the saved seed plus their rank. Files are read as
        tensors and plain containers only (where the torch's safe reader can read optimizers:
        torch >= 2.0) unless weights_only=False, for a trusted checkpoint whose registered
        objects hold other types."""
        if self.is_main_process:
            _state.recover(directory)
        coll.wait_for_everyone()
        manifest = _state.read_manifest(directory)
        expected = sorted(self._shared_state_names())
        if sorted(manifest.get("files", [])) != expected:
            raise ValueError(f"anygpu: {directory} holds {sorted(manifest.get('files', []))}; "
                             f"this run prepared {expected} (prepare the same objects first)")
        read = lambda name: _state.read_torch(directory, name, weights_only=weights_only)  # noqa: E731
        loader_states = [read(f"loader_{i}.pt") for i in range(len(self._loaders))]
        saved_world = manifest.get("world_size")
        if saved_world != self.world_size:
            _refuse_mid_epoch_world_change(directory, saved_world, self.world_size,
                                           loader_states)
        for i, model in enumerate(self._models):
            self.unwrap(model).load_state_dict(read(f"model_{i}.pt"))
        for kind, objs in (("optimizer", self._optimizers), ("scheduler", self._schedulers),
                           ("custom", self._custom)):
            for i, obj in enumerate(objs):
                obj.load_state_dict(read(f"{kind}_{i}.pt"))
        for loader, state in zip(self._loaders, loader_states):
            loader.load_state_dict(state)
        if self.scaler is not None:
            self.scaler.load_state_dict(read("scaler.pt"))
        own = read("accelerator.pt")
        self._accumulation.load_state_dict(own["accumulation"])
        self._seed = own["seed"]
        if isinstance(saved_world, int) and self.rank < saved_world:
            _state.set_rng_state(read(f"rng_rank{self.rank}.pt"), self.device)
        else:
            warn_once("rng-world-change", f"anygpu: {directory} was saved by {saved_world} "
                      f"processes; ranks from {saved_world} on have no saved random state and "
                      "are seeded from the saved seed plus their rank")
            _state.set_seed((self._seed or 0) + self.rank, self.device)
        coll.wait_for_everyone()

    def _shared_state_names(self):
        names = ["accelerator.pt"] + [f"model_{i}.pt" for i in range(len(self._models))]
        for kind, objs in (("optimizer", self._optimizers), ("scheduler", self._schedulers),
                           ("loader", self._loaders), ("custom", self._custom)):
            names += [f"{kind}_{i}.pt" for i in range(len(objs))]
        if self.scaler is not None:
            names.append("scaler.pt")
        return names

    # -- memory and the rest ------------------------------------------------------------
    def free_memory(self, *objects):
        """Drops this Accelerator's references to what it prepared (and returns one None per
        argument, to rebind), collects garbage and empties the device cache."""
        self._models, self._optimizers, self._schedulers, self._loaders = [], [], [], []
        self._custom = []
        gc.collect()
        self.empty_cache()
        return [None] * len(objects)

    def memory_stats(self) -> dict:
        return memory_stats(self.device)

    def synchronize(self) -> None:
        synchronize(self.device)

    def empty_cache(self) -> None:
        empty_cache(self.device)

    def unwrap(self, model):
        """The model inside a DistributedDataParallel wrapper."""
        ddp = torch.nn.parallel.DistributedDataParallel
        return model.module if isinstance(model, ddp) else model

    unwrap_model = unwrap

    def print(self, *args, **kwargs) -> None:
        if self.is_main_process:
            kwargs.setdefault("flush", True)
            builtins.print(*args, **kwargs)

    def end(self) -> None:
        """Leaves the process group (a no-op for one process), all processes together: one
        that left first could take the store its peers still read from with it."""
        if self.distributed and torch.distributed.is_initialized():
            coll.wait_for_everyone()
            leave_group()
            self.distributed = False

    end_training = end


def _refuse_mid_epoch_world_change(directory, saved, now, loader_states) -> None:
    """A loader's position counts this rank's batches of a split by `saved` processes: with
    another number of processes the remaining samples cannot be dealt out again exactly."""
    for i, state in enumerate(loader_states):
        if int(state.get("position", 0)):
            raise ValueError(
                f"anygpu: {directory} was saved by {saved} processes in the middle of an epoch "
                f"(loader {i}: epoch {state.get('epoch')}, batch {state.get('position')}); this "
                f"run has {now}. Resume with {saved} processes, or save at the end of an epoch "
                "to change the number of processes")
