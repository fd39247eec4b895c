"""The DataLoader prepare() returns: a real DataLoader over the user's dataset, sampler and
collate_fn, sharded across processes, yielding batches on the device, and resumable."""
import collections.abc
import copy

import torch
from torch.utils.data import DataLoader, DistributedSampler, IterableDataset

from ._sharding import ALL, CollateCountingDuplicates, RankShard, ShardedSampler, Tagged
from ._sharding import without_rng_effect


def move(batch, dev, non_blocking=False):
    """`batch` with every tensor on `dev`: tensors, objects with .to() (BatchEncoding,
    PackedSequence), mappings (dict, UserDict, OrderedDict …), named tuples and sequences."""
    if isinstance(batch, torch.Tensor):
        return batch.to(dev, non_blocking=non_blocking)
    if isinstance(batch, (str, bytes)):
        return batch
    to = getattr(batch, "to", None)
    if callable(to):
        if non_blocking:
            try:
                return to(dev, non_blocking=True)
            except TypeError:  # e.g. an older BatchEncoding.to(device)
                pass
        return to(dev)
    if isinstance(batch, collections.abc.Mapping):
        moved = {k: move(v, dev, non_blocking) for k, v in batch.items()}
        if type(batch) is dict:
            return moved
        if isinstance(batch, collections.abc.MutableMapping):
            out = copy.copy(batch)  # keeps the type and its extras (defaultdict's factory …)
            out.update(moved)
            return out
        try:
            return type(batch)(moved)
        except TypeError:
            return moved
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):  # named tuple
        return type(batch)(*(move(b, dev, non_blocking) for b in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(move(b, dev, non_blocking) for b in batch)
    return batch


class Progress:
    """Which prepared loader is yielding now, whether its last batch came, and how many
    samples of the current batch are padding; shared with the Accelerator."""

    def __init__(self):
        self.stack = []
        self.end_of_loader = False
        self.duplicates = 0

    @property
    def loader(self):
        return self.stack[-1] if self.stack else None


def _worker_options(loader: DataLoader) -> dict:
    opts = {"num_workers": loader.num_workers, "pin_memory": loader.pin_memory,
            "timeout": loader.timeout, "worker_init_fn": loader.worker_init_fn,
            "multiprocessing_context": loader.multiprocessing_context}
    if loader.num_workers > 0:  # torch rejects these without worker processes
        opts["prefetch_factor"] = loader.prefetch_factor
        opts["persistent_workers"] = loader.persistent_workers
    if getattr(loader, "pin_memory_device", ""):
        opts["pin_memory_device"] = loader.pin_memory_device
    return opts


def _sharded_already(loader: DataLoader) -> bool:
    inner = getattr(loader.batch_sampler, "sampler", None)
    return isinstance(loader.sampler, DistributedSampler) or isinstance(inner, DistributedSampler)


def _drop(iterator, count: int) -> None:
    for _ in range(count):
        if next(iterator, None) is None:
            return


class PreparedLoader(DataLoader):
    """A DataLoader over the original's dataset whose sampler (or batch sampler, or iterable
    dataset) is sharded across `world` processes, whose batches arrive on `device`, and which
    counts its epoch and position for save_state()/load_state().

    The epoch advances by one per pass unless the caller sets it — `loader.set_epoch(e)`,
    `loader.sampler.set_epoch(e)` or the caller's own sampler's set_epoch — which always wins.
    """

    def __init__(self, original: DataLoader, *, device, rank: int, world: int, seed: int,
                 progress: Progress):
        opts = _worker_options(original)
        collate = original.collate_fn
        self.sharded = None
        self._unit = 1  # sampler units per batch
        self.original = original
        dataset = original.dataset
        if _sharded_already(original):  # the caller's DistributedSampler: kept as it is
            rank, world = 0, 1
        if isinstance(dataset, IterableDataset):
            if world > 1:
                dataset = RankShard(dataset, rank, world, original.drop_last)
                collate = CollateCountingDuplicates(collate, original.batch_size is not None)
            super().__init__(dataset, batch_size=original.batch_size, drop_last=original.drop_last,
                             collate_fn=collate, generator=torch.Generator(), **opts)
        elif original.batch_size is not None:  # torch batches the sampler's indices
            self.sharded = ShardedSampler(original.sampler, rank, world, seed, original.drop_last)
            self._unit = original.batch_size
            super().__init__(dataset, batch_size=original.batch_size, sampler=self.sharded,
                             drop_last=original.drop_last, collate_fn=collate,
                             generator=torch.Generator(), **opts)
        elif original.batch_sampler is not None:  # the caller's own batch sampler
            self.sharded = ShardedSampler(original.batch_sampler, rank, world, seed, False)
            super().__init__(dataset, batch_sampler=self.sharded, collate_fn=collate,
                             generator=torch.Generator(), **opts)
        else:  # no automatic batching: each index is a batch
            self.sharded = ShardedSampler(original.sampler, rank, world, seed, False)
            super().__init__(dataset, batch_size=None, sampler=self.sharded, collate_fn=collate,
                             generator=torch.Generator(), **opts)
        self.device, self.seed, self.progress = device, int(seed), progress
        self.epoch = 0  # of the current pass, or of the next one when none is under way
        self.position = 0  # batches yielded in the current pass
        self._in_pass = False
        self._resume = 0  # batches a loaded state says the pass at `epoch` already consumed
        self._iterable_tags = isinstance(collate, CollateCountingDuplicates)
        self._explicit = None  # set_epoch() of a loader over an iterable dataset
        self._skip_once = None  # skip_first_batches(): batches to leave out of the next pass

    def set_epoch(self, epoch: int) -> None:
        """Like DistributedSampler.set_epoch: the order of the next pass (then it is kept)."""
        if self.sharded is not None:
            self.sharded.set_epoch(epoch)
        else:
            self._explicit = int(epoch)

    def skip_next_pass(self, batches: int) -> None:
        """The next pass starts `batches` batches in (Accelerator.skip_first_batches)."""
        if batches < 0:
            raise ValueError(f"skip_first_batches: num_batches={batches} must be >= 0")
        if self._resume and batches != self._resume:
            raise ValueError(f"anygpu: load_state() already resumes this loader {self._resume} "
                             f"batches into epoch {self.epoch} (anygpu restores the position "
                             f"itself); skip_first_batches(loader, {batches}) contradicts it: "
                             f"drop the call or pass {self._resume}")
        self._skip_once = batches if batches else None

    def _choose_epoch(self) -> int:
        s = self.sharded
        auto = self.epoch + 1 if self._in_pass or self.position else self.epoch
        if s is None:
            explicit, self._explicit = self._explicit, None
            return auto if explicit is None else explicit
        if s.user_epoch:
            s.user_epoch = False
            return s.epoch
        if s.source_epoch_changed():
            s.adopt_source_epoch()
            return s.epoch
        s.apply_epoch(auto)
        return auto

    def _begin(self) -> int:
        epoch = self._choose_epoch()
        skip = self._resume if epoch == self.epoch else 0
        self._resume = 0
        if not skip and self.sharded is not None:
            self.sharded.generator_state = None  # a new epoch draws on from the generator
        if self._skip_once is not None:  # skip_first_batches(): whatever the epoch
            skip, self._skip_once = self._skip_once, None
        self.epoch, self.position, self._in_pass = epoch, skip, True
        self.generator.manual_seed(self.seed + epoch)  # worker seeds: fixed per epoch
        if self.sharded is not None:
            self.sharded.skip = skip * self._unit
        return skip

    def __iter__(self):
        skip = self._begin()
        progress = self.progress
        progress.stack.append(self)
        try:
            total = len(self) if self._sized() else None
        except TypeError:
            total = None
        non_blocking = bool(self.pin_memory)
        dev = self.device
        try:
            batches = super().__iter__()
            if skip and self.sharded is None:  # an iterable dataset: replay, then drop
                without_rng_effect(lambda: _drop(batches, skip))
            for batch in batches:
                dups = self._duplicates(batch)
                if self._iterable_tags:
                    batch = batch.batch
                self.position += 1
                progress.end_of_loader = total is not None and self.position >= total
                progress.duplicates = dups
                yield move(batch, dev, non_blocking)
            self._in_pass = False
            self.epoch, self.position = self.epoch + 1, 0
        finally:
            if progress.stack and progress.stack[-1] is self:
                progress.stack.pop()
            progress.end_of_loader = False

    def _sized(self) -> bool:
        return not isinstance(self.dataset, IterableDataset) or hasattr(self.dataset, "__len__")

    def _duplicates(self, batch) -> int:
        if self._iterable_tags:
            return batch.duplicates if isinstance(batch, Tagged) else 0
        s = self.sharded
        if s is None or not s.padded:
            return 0
        units = self._unit
        dups = s.duplicates(self.position * units, units)
        return ALL if dups and units == 1 and self.batch_size != 1 else dups

    def state_dict(self) -> dict:
        """Epoch, position and the sampler's RNG state, enough to resume this pass exactly."""
        state = {"epoch": self.epoch, "position": self.position if self._in_pass else 0,
                 "seed": self.seed}
        if self.sharded is not None:
            gen = self.sharded._generator()
            if self._in_pass:
                state["generator_state"] = self.sharded.generator_state
            elif gen is not None:
                state["generator_state"] = gen.get_state()
        return state

    def load_state_dict(self, state: dict) -> None:
        self.epoch, self._resume = int(state["epoch"]), int(state["position"])
        self.position, self._in_pass = 0, False
        self.seed = int(state["seed"])
        if self.sharded is not None:
            self.sharded.seed = self.seed
            self.sharded.generator_state = state.get("generator_state")
            self.sharded.user_epoch = False
            if state.get("generator_state") is not None and not self._resume:
                gen = self.sharded._generator()
                if gen is not None:
                    gen.set_state(state["generator_state"])
                self.sharded.generator_state = None
