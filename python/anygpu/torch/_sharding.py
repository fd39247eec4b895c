"""Sharding what a DataLoader yields across processes without replacing the user's choices.

ShardedSampler wraps the loader's own sampler (or batch sampler): each epoch it draws that
sampler's order once, identically on every rank, and keeps this rank's share, the way
DistributedSampler shards a dataset's indices. RankShard does the same for an IterableDataset.
Padding (to give every rank the same number of batches, which collectives need) repeats items
from the start and is counted, so gathered metrics can drop it again.
"""
import collections
import random

import torch
from torch.utils.data import BatchSampler, IterableDataset, Sampler

# In `duplicates`: the whole batch repeats earlier samples (a padded batch of a batch sampler).
ALL = -1


def _seedable(source):
    """The sampler (of a batch sampler too) that takes a `generator` and has none: torch's
    RandomSampler, SubsetRandomSampler, WeightedRandomSampler. Lending it a generator seeded
    with seed + epoch draws the order DistributedSampler(shuffle=True) and accelerate's seedable
    sampler draw for that seed and epoch (torch.randperm under that generator)."""
    inner = getattr(source, "sampler", None) if isinstance(source, BatchSampler) else source
    if "generator" in getattr(inner, "__dict__", ()) and inner.generator is None:
        return inner
    return None


class ShardedSampler(Sampler):
    """This rank's share of what `source` yields: indices, or whole batches of a batch sampler.

    The source's order is drawn once per epoch under a torch generator seeded with seed + epoch
    (lent to torch's own samplers, else the default generator, forked), so every rank draws the
    same order without consuming the caller's RNG stream; a source with its own torch.Generator
    uses it (its state at the epoch's start is kept for resuming).
    """

    def __init__(self, source, rank: int, world: int, seed: int, drop_last: bool):
        self.source, self.rank, self.world = source, rank, world
        self.seed, self.drop_last = int(seed), bool(drop_last)
        self.epoch = 0
        self.user_epoch = False  # set_epoch() was called since the loader last read it
        self._forwarded = getattr(source, "epoch", None)
        self._source_set_epoch = getattr(source, "set_epoch", None)
        if self._source_set_epoch is not None:
            self._watch_source_epoch()
        self.skip = 0  # units to leave out of the next pass (a resumed epoch)
        self.generator_state = None
        self.length = 0  # this rank's units in the current pass
        self.padded = 0  # how many of them (at the end) repeat earlier units: 0 or 1

    def _watch_source_epoch(self) -> None:
        # The caller may call set_epoch on its own sampler (a DistributedSampler) any time,
        # with any value, even the one already set: each such call must win over the counter.
        original = self._source_set_epoch

        def set_epoch(epoch):
            original(epoch)
            self.epoch, self.user_epoch = int(epoch), True
            self._forwarded = getattr(self.source, "epoch", epoch)

        try:
            self.source.set_epoch = set_epoch
        except AttributeError:  # __slots__: fall back to noticing a changed `epoch`
            pass

    def set_epoch(self, epoch: int) -> None:
        """The epoch whose order the next pass draws (DistributedSampler's contract)."""
        self.apply_epoch(epoch)
        self.user_epoch = True

    def apply_epoch(self, epoch: int) -> None:
        self.epoch = int(epoch)
        if self._source_set_epoch is not None:
            self._source_set_epoch(self.epoch)
            self._forwarded = getattr(self.source, "epoch", self.epoch)

    def source_epoch_changed(self) -> bool:
        """True when the caller set the epoch on its own sampler (never overridden then)."""
        current = getattr(self.source, "epoch", None)
        return isinstance(current, int) and current != self._forwarded

    def adopt_source_epoch(self) -> None:
        self.epoch = self._forwarded = self.source.epoch

    def _generator(self):
        gen = getattr(self.source, "generator", None)
        return gen if isinstance(gen, torch.Generator) else None

    def _draw(self) -> list:
        gen = self._generator()
        if gen is not None:
            if self.generator_state is not None:  # resuming: replay this epoch's draw
                gen.set_state(self.generator_state)
            self.generator_state = gen.get_state()
            return list(self.source)
        drawing = _seedable(self.source)
        if drawing is not None:  # draws from a generator seeded with seed + epoch, lent to it
            drawing.generator = torch.Generator().manual_seed(self.seed + self.epoch)
            try:
                return list(self.source)
            finally:
                drawing.generator = None
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed + self.epoch)
            return list(self.source)

    def __iter__(self):
        units = self._draw()
        n, world = len(units), self.world
        pad = 0
        if world > 1 and n:
            if self.drop_last:
                units = units[:n - n % world]
            else:
                pad = -n % world
                while len(units) < n + pad:
                    units += units[:n + pad - len(units)]
        mine = units[self.rank::world]
        self.length = len(mine)
        self.padded = 1 if pad and self.rank >= world - pad else 0
        skip, self.skip = self.skip, 0
        return iter(mine[skip:])

    def __len__(self) -> int:
        n = len(self.source)
        if self.world == 1:
            return n
        return n // self.world if self.drop_last else -(-n // self.world)

    def duplicates(self, first: int, count: int) -> int:
        """Padded units among this rank's units first..first+count-1 of the pass."""
        start = self.length - self.padded
        return max(0, min(first + count, self.length) - max(first, start))

    def state(self) -> dict:
        return {"seed": self.seed, "generator_state": self.generator_state}


class Duplicate:
    """An item RankShard repeats to pad this rank's stream; collation unwraps it."""

    __slots__ = ("item",)

    def __init__(self, item):
        self.item = item


class RankShard(IterableDataset):
    """Every `world`-th item of an iterable dataset, starting at `rank` (inside each worker)."""

    def __init__(self, dataset, rank: int, world: int, drop_last: bool):
        self.dataset, self.rank, self.world, self.drop_last = dataset, rank, world, drop_last

    def __iter__(self):
        group, first = [], None
        for item in self.dataset:
            group.append(item)
            if len(group) == self.world:
                first = first or group
                yield group[self.rank]
                group = []
        if group and not self.drop_last:  # a last, short group: pad it from the stream's start
            if self.rank < len(group):
                yield group[self.rank]
            else:
                source = first or group
                yield Duplicate(source[(self.rank - len(group)) % len(source)])

    def __len__(self) -> int:
        n = len(self.dataset)  # TypeError for an unsized stream, as DataLoader expects
        return n // self.world if self.drop_last else -(-n // self.world)


# A collated batch and how many of its samples (at the end) are padding duplicates. A named
# tuple survives the trip from worker processes and pin_memory (which rebuilds named tuples).
Tagged = collections.namedtuple("Tagged", "batch duplicates")


class CollateCountingDuplicates:
    """Wraps a collate_fn: unwraps Duplicate items and counts them (runs in workers too)."""

    def __init__(self, collate, auto_collation: bool):
        self.collate, self.auto_collation = collate, auto_collation

    def __call__(self, items):
        if not self.auto_collation:
            dup = isinstance(items, Duplicate)
            return Tagged(self.collate(items.item if dup else items), ALL if dup else 0)
        dups = sum(isinstance(i, Duplicate) for i in items)
        if dups:
            items = [i.item if isinstance(i, Duplicate) else i for i in items]
        return Tagged(self.collate(items), dups)


def without_rng_effect(fn):
    """Runs fn() leaving the torch CPU and Python RNG states as they were (replayed skips)."""
    python_state = random.getstate()
    with torch.random.fork_rng(devices=[]):
        try:
            return fn()
        finally:
            random.setstate(python_state)
