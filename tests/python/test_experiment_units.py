"""The experiment layer's pieces in one process: batch movement, the prepared loader's
sharding and epochs, the scaler-stepping optimizer, checkpoint directories, launch refusals."""
import collections
import copy
import os
import subprocess
import time

import pytest
import torch
from torch.utils.data import (DataLoader, DistributedSampler, IterableDataset, TensorDataset)

import anygpu
import anygpu.torch as agt
from anygpu.torch._loader import PreparedLoader, Progress
from anygpu.torch._sharding import ALL, ShardedSampler
from conftest import PYTHON, REPO, clean_env, rendezvous_port


META = torch.device("meta")  # a device every CPU torch has: proves a tensor was moved


def test_move_reaches_every_container():
    class WithTo:
        def __init__(self):
            self.calls = []

        def to(self, dev):
            self.calls.append(dev)
            return self

    Pair = collections.namedtuple("Pair", "a b")
    factory = collections.defaultdict(list, {"x": torch.ones(1)})
    obj = WithTo()
    batch = {"t": torch.ones(2), "u": collections.UserDict({"v": torch.ones(1)}),
             "n": Pair(torch.ones(1), [torch.ones(1), "text"]), "d": factory, "o": obj, "s": "s"}
    out = agt.move(batch, META)
    assert out["t"].device == META and out["u"]["v"].device == META
    assert type(out["u"]) is collections.UserDict and isinstance(out["n"], Pair)
    assert out["n"].b[0].device == META and out["n"].b[1] == "text"
    assert out["d"].default_factory is list and out["d"]["x"].device == META
    assert out["o"] is obj and obj.calls == [META] and out["s"] == "s"
    assert batch["t"].device.type == "cpu"  # the input is left as it was


def _loader(loader, rank=0, world=1, seed=0):
    return PreparedLoader(loader, device=torch.device("cpu"), rank=rank, world=world, seed=seed,
                          progress=Progress())


def test_shuffle_order_is_distributed_samplers_for_the_seed_and_epoch():
    """A shuffling loader draws, per epoch, torch.randperm under a generator seeded with
    seed + epoch: DistributedSampler(shuffle=True, seed=seed)'s order, and accelerate's with
    use_seedable_sampler and data_seed=seed; sharded as DistributedSampler shards it."""
    data = TensorDataset(torch.arange(37))
    for world in (1, 2):
        for rank in range(world):
            loader = _loader(DataLoader(data, batch_size=1, shuffle=True), rank, world, seed=9)
            reference = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=True,
                                           seed=9)
            for epoch in range(3):
                reference.set_epoch(epoch)
                got = [int(b) for (b,) in loader]
                assert got == list(reference), (world, rank, epoch)
    batches = _loader(DataLoader(data, batch_sampler=torch.utils.data.BatchSampler(
        torch.utils.data.RandomSampler(data), 4, False)), seed=9)
    perm = torch.randperm(37, generator=torch.Generator().manual_seed(9)).tolist()
    assert [b.tolist() for (b,) in batches] == [perm[i:i + 4] for i in range(0, 37, 4)]


def test_prepared_loader_is_a_data_loader(isolated):
    data = TensorDataset(torch.arange(10))
    acc = agt.Accelerator()
    loader = acc.prepare(DataLoader(data, batch_size=4, shuffle=True))
    clone = copy.copy(loader)
    assert isinstance(loader, DataLoader) and len(loader) == len(clone) == 3
    assert loader.batch_size == 4 and loader.dataset is data
    assert sorted(torch.cat([b for (b,) in clone]).tolist()) == list(range(10))


def test_sharding_pads_evenly_and_counts_the_padding():
    shards = [ShardedSampler(range(101), r, 2, 0, drop_last=False) for r in range(2)]
    got = [list(s) for s in shards]
    assert [len(g) for g in got] == [51, 51] and sorted(got[0] + got[1][:-1]) == list(range(101))
    assert got[1][-1] == 0 and [s.padded for s in shards] == [0, 1]
    assert shards[1].duplicates(48, 8) == 1 and shards[1].duplicates(40, 8) == 0
    dropped = [list(ShardedSampler(range(101), r, 2, 0, drop_last=True)) for r in range(2)]
    assert [len(d) for d in dropped] == [50, 50]


def test_epochs_advance_unless_the_caller_sets_them(isolated):
    data = TensorDataset(torch.arange(32))
    loader = _loader(DataLoader(data, batch_size=32, shuffle=True))
    orders = [next(iter(loader))[0].tolist() for _ in range(3)]
    assert len({tuple(o) for o in orders}) == 3 and loader.epoch == 2  # the third pass
    loader.set_epoch(1)
    assert next(iter(loader))[0].tolist() == orders[1]
    # The caller's own DistributedSampler: its set_epoch(e) wins over the loader's counter.
    own = DistributedSampler(data, num_replicas=1, rank=0, shuffle=True, seed=5)
    wrapped = _loader(DataLoader(data, batch_size=32, sampler=own))
    own.set_epoch(7)
    first = next(iter(wrapped))[0].tolist()
    own.set_epoch(7)
    assert first == list(own) and next(iter(wrapped))[0].tolist() == first


def test_the_seed_decides_the_order(isolated):
    data = TensorDataset(torch.arange(64))

    def order(seed):
        return next(iter(_loader(DataLoader(data, batch_size=64, shuffle=True), seed=seed)))

    assert torch.equal(order(3)[0], order(3)[0]) and not torch.equal(order(3)[0], order(4)[0])
    acc = agt.Accelerator(seed=11)
    assert acc.prepare(DataLoader(data, batch_size=8, shuffle=True)).seed == 11


class Stream(IterableDataset):
    def __iter__(self):
        return iter(range(7))


def test_iterable_datasets_are_sharded_by_rank():
    ranks = [_loader(DataLoader(Stream(), batch_size=2), rank=r, world=3) for r in range(3)]
    got = [[b.tolist() for b in r] for r in ranks]
    assert got == [[[0, 3], [6]], [[1, 4], [0]], [[2, 5], [1]]]  # rank 1 and 2 pad the end
    assert [r.progress.duplicates for r in ranks] == [0, 1, 1]


def test_resume_skips_what_the_pass_consumed(isolated):
    data = TensorDataset(torch.arange(40))
    first = _loader(DataLoader(data, batch_size=4, shuffle=True))
    it = iter(first)
    consumed = [next(it)[0].tolist() for _ in range(3)]
    state = first.state_dict()
    rest = [b.tolist() for (b,) in it]
    assert state["epoch"] == 0 and state["position"] == 3
    fresh = _loader(DataLoader(data, batch_size=4, shuffle=True))
    fresh.load_state_dict(state)
    assert [b.tolist() for (b,) in fresh] == rest and fresh.epoch == 1
    assert len(consumed) + len(rest) == len(fresh)


class RecordingScaler:
    def __init__(self):
        self.calls = []

    def scale(self, loss):
        self.calls.append("scale")
        return loss * 1024

    def unscale_(self, opt):
        self.calls.append("unscale_")
        for group in opt.param_groups:
            for p in group["params"]:
                p.grad /= 1024

    def step(self, opt):
        self.calls.append("step")
        opt.step()

    def update(self):
        self.calls.append("update")


def _scaled_step(isolated, use_acc_step):
    acc = agt.Accelerator()
    acc.scaler = RecordingScaler()  # a float16 device's scaler (CPU torch 1.13 has none)
    model = torch.nn.Linear(2, 1)
    model, opt = acc.prepare(model, torch.optim.SGD(model.parameters(), lr=1.0))
    before = model.weight.detach().clone()
    acc.backward(model(torch.ones(1, 2)).sum())
    acc.clip_grad_norm_(model.parameters(), 1e9)
    acc.clip_grad_norm_(model.parameters(), 1e9)  # unscales once per step
    acc.step(opt) if use_acc_step else opt.step()
    return acc.scaler.calls, before - model.weight.detach()


@pytest.mark.parametrize("use_acc_step", [True, False])
def test_the_prepared_optimizer_steps_through_the_scaler(isolated, use_acc_step):
    calls, change = _scaled_step(isolated, use_acc_step)
    assert calls == ["scale", "unscale_", "step", "update"]
    assert torch.allclose(change, torch.ones(1, 2))  # one true (unscaled) step, not two


def test_save_state_replaces_atomically_and_leaves_nothing_behind(isolated, tmp_path):
    acc = agt.Accelerator()
    model = acc.prepare(torch.nn.Linear(2, 2))
    target = tmp_path / "ckpt"
    acc.save_state(target)
    first = torch.load(target / "model_0.pt")

    class Broken:
        def state_dict(self):
            raise RuntimeError("cannot serialize")

        def load_state_dict(self, state):
            pass

    with torch.no_grad():
        model.weight.add_(1)
    acc.register_for_checkpointing(Broken())
    with pytest.raises(RuntimeError, match="cannot serialize"):
        acc.save_state(target)
    assert torch.equal(torch.load(target / "model_0.pt")["weight"], first["weight"])
    assert sorted(os.listdir(tmp_path)) == ["ckpt"]
    acc._custom.clear()
    acc.save_state(target)
    assert sorted(os.listdir(tmp_path)) == ["ckpt"]
    assert torch.equal(torch.load(target / "model_0.pt")["weight"], model.weight.detach())


def test_load_state_names_what_does_not_fit(isolated, tmp_path):
    acc = agt.Accelerator()
    acc.prepare(torch.nn.Linear(2, 2))
    with pytest.raises(FileNotFoundError, match="anygpu-state.json not found"):
        acc.load_state(tmp_path)
    acc.save_state(tmp_path / "c")
    other = agt.Accelerator()
    other.prepare(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="model_1.pt"):
        other.load_state(tmp_path / "c")


class _Plain:
    """Not a tensor or container: a checkpoint holding it could run code when unpickled."""

    def __init__(self, value):
        self.value = value


class _HoldsAnObject:
    def __init__(self):
        self.held = _Plain(1)

    def state_dict(self):
        return {"held": self.held}

    def load_state_dict(self, state):
        self.held = state["held"]


def test_load_state_reads_tensors_only_unless_told_the_checkpoint_is_trusted(isolated, tmp_path):
    import numpy
    acc = agt.Accelerator()
    acc.prepare(torch.nn.Linear(2, 2))
    custom = _HoldsAnObject()
    acc.register_for_checkpointing(custom)
    numpy.random.seed(7)
    acc.save_state(tmp_path / "c")
    expected = numpy.random.rand(3)  # NumPy's state travels in a form weights_only accepts
    custom.held = _Plain(2)
    from anygpu.torch import _state
    if _state.safe_reader_works():  # torch >= 2.0; 1.13's reader cannot read an optimizer
        with pytest.raises(ValueError, match=r"custom_0\.pt holds objects other than tensors"
                                             r".*weights_only=False"):
            acc.load_state(tmp_path / "c")
    else:
        assert torch.__version__.startswith("1."), torch.__version__
    acc.load_state(tmp_path / "c", weights_only=False)
    assert custom.held.value == 1
    assert numpy.array_equal(numpy.random.rand(3), expected)


def test_collectives_are_the_identity_for_one_process(isolated):
    acc = agt.Accelerator()
    t = torch.arange(3)
    assert acc.gather(t) is t and acc.reduce(t) is t and acc.broadcast(t) is t
    assert acc.pad_across_processes(t) is t and acc.gather_for_metrics(t) is t
    acc.wait_for_everyone()
    with acc.main_process_first():
        pass
    with acc.split_between_processes([1, 2, 3]) as part:
        assert part == [1, 2, 3]
    from anygpu.torch._collectives import _split
    assert [_split(list(range(5)), r, 2, False) for r in range(2)] == [[0, 1, 2], [3, 4]]
    assert _split(torch.arange(5), 1, 2, True).tolist() == [3, 4, 4]
    assert agt.memory_stats()["max_rss_bytes"] > 0 and agt.free_memory(t) == [None]


def test_set_seed_seeds_python_numpy_and_torch(isolated):
    import random
    import numpy
    agt.set_seed(9)
    a = (random.random(), numpy.random.rand(), torch.rand(1))
    agt.set_seed(9)
    assert a == (random.random(), numpy.random.rand(), torch.rand(1))


def test_a_lone_process_of_a_slurm_allocation_fails_fast():
    start = time.monotonic()
    proc = subprocess.run([PYTHON, "-c", "import anygpu.torch as a; a.Accelerator()"],
                          env=clean_env(SLURM_JOB_ID="42", SLURM_NTASKS="2", SLURM_PROCID="0",
                                        SLURM_JOB_NODELIST="n1"),
                          capture_output=True, text=True, timeout=120, cwd=REPO)
    assert proc.returncode == 1 and time.monotonic() - start < 60
    assert "srun" in proc.stderr and "anygpu run" in proc.stderr, proc.stderr
    assert "InvalidEnvironmentError" in proc.stderr and "job 42 of 2 tasks" in proc.stderr


def test_rendezvous_times_out_naming_who_came(isolated):
    isolated.setenv("RANK", "0")
    isolated.setenv("WORLD_SIZE", "2")
    isolated.setenv("MASTER_ADDR", "127.0.0.1")
    isolated.setenv("MASTER_PORT", str(rendezvous_port()))
    isolated.setenv("ANYGPU_RENDEZVOUS_TIMEOUT", "1")
    start = time.monotonic()
    with pytest.raises(TimeoutError, match="1 of 2 processes joined"):
        agt.init_distributed()
    assert time.monotonic() - start < 30 and not torch.distributed.is_initialized()
    isolated.setenv("ANYGPU_RENDEZVOUS_TIMEOUT", "soon")
    with pytest.raises(anygpu.InvalidEnvironmentError, match='ANYGPU_RENDEZVOUS_TIMEOUT="soon"'):
        agt.init_distributed()


def test_an_explicit_dist_backend_is_honoured_or_refused(isolated):
    from anygpu.torch._distributed import resolve_backend
    isolated.setenv("ANYGPU_VENDOR", "cpu")
    isolated.setenv("ANYGPU_TORCH_DEVICE", "cpu")
    isolated.setenv("ANYGPU_DIST_BACKEND", "gloo")
    assert resolve_backend() == "gloo"
    isolated.setenv("ANYGPU_DIST_BACKEND", "nccl")
    with pytest.raises(RuntimeError, match="ANYGPU_DIST_BACKEND='nccl' cannot be used: nccl "
                       "runs collectives on cuda tensors"):
        resolve_backend()
    isolated.setenv("ANYGPU_DIST_BACKEND", "nosuch")
    with pytest.raises(RuntimeError, match="nosuch is not registered"):
        resolve_backend()
    with pytest.raises(RuntimeError, match="backend='hccl'"):
        resolve_backend("hccl")
    # The selection was for GPUs this CPU torch cannot use: gloo, with a warning that says so.
    isolated.setenv("ANYGPU_VENDOR", "nvidia")
    isolated.setenv("ANYGPU_TORCH_DEVICE", "cuda")
    isolated.setenv("ANYGPU_DIST_BACKEND", "nccl")
    with pytest.warns(agt.AnygpuWarning) as caught:
        assert resolve_backend() == "gloo"
    assert any("ANYGPU_DIST_BACKEND=nccl was chosen for 'cuda'" in str(w.message) for w in caught)
