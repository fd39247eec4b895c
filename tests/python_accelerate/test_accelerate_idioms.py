"""Code written for accelerate's idioms (accumulate, no_sync, set_epoch, skip_first_batches,
reduce, gather) behaves the same under anygpu.torch.Accelerator (idioms.py, 2 processes under
each launcher), and where anygpu does not take accelerate's form the error names anygpu's."""
import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

from conftest import launch

WORLD = 2


@pytest.fixture(scope="module")
def seen(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("idioms")
    out = {}
    for framework in ("accelerate", "anygpu"):
        launch(tmp, framework, WORLD, "idioms.py", [framework, tmp])
        out[framework] = [torch.load(tmp / f"{framework}-rank{r}.pt") for r in range(WORLD)]
    return out


def _same(a, b, path="result"):
    if isinstance(a, torch.Tensor):
        assert isinstance(b, torch.Tensor) and a.shape == b.shape, path
        assert torch.allclose(a, b, rtol=1e-6, atol=1e-7), f"{path}: {a} != {b}"
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            _same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{path}: {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{path}[{i}]")
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def test_who_am_i(seen):
    for framework, ranks in seen.items():
        assert [(r["world"], r["rank"], r["local"], r["main"]) for r in ranks] == \
            [(2, 0, 0, True), (2, 1, 1, False)], framework


def test_accumulate_and_no_sync_agree(seen):
    for rank in range(WORLD):
        _same(seen["accelerate"][rank]["accumulation"], seen["anygpu"][rank]["accumulation"],
              f"rank{rank}.accumulation")
    a = [r["accumulation"] for r in seen["anygpu"]]
    assert a[0]["syncs"] == [False, True, False, True]
    # mid-group gradients are local (they differ), synced ones are the same on both ranks
    assert not torch.equal(a[0]["grads"][0][0], a[1]["grads"][0][0])
    assert torch.equal(a[0]["grads"][1][0], a[1]["grads"][1][0])
    assert not torch.equal(a[0]["no_sync"][0], a[1]["no_sync"][0])
    assert torch.equal(a[0]["after_no_sync"][0], a[1]["after_no_sync"][0])


def _steps(batches):  # each step's samples over both ranks (ranks split a step differently)
    return [sorted(b) for b in batches]


def test_set_epoch_and_skip_first_batches_agree(seen):
    for framework, ranks in seen.items():
        loaders = ranks[0]["loaders"]
        assert loaders == ranks[1]["loaders"], framework  # gathered: the same on both ranks
        assert sorted(i for b in loaders["epoch0"] for i in b) == list(range(32))
        assert loaders["epoch0"] != loaders["epoch1"], framework
        assert loaders["epoch0_again"] == loaders["epoch0"], framework
        assert loaders["epoch1_skip2"] == loaders["epoch1"][2:], framework
        assert loaders["epoch1_after_skipping"] == loaders["epoch1"], framework
    a, b = seen["accelerate"][0]["loaders"], seen["anygpu"][0]["loaders"]
    for key in a:
        assert _steps(a[key]) == _steps(b[key]), key


def test_reduce_and_gather_agree(seen):
    for rank in range(WORLD):
        _same(seen["accelerate"][rank]["collectives"], seen["anygpu"][rank]["collectives"],
              f"rank{rank}.collectives")
    c = seen["anygpu"][0]["collectives"]
    assert c["sum"].tolist() == [3.0, 30.0] and c["max"].tolist() == [2.0, 20.0]
    assert c["gather"].tolist() == [1.0, 10.0, 2.0, 20.0]


# Where anygpu declines accelerate's form, the message names what to do instead.

def test_reduce_none_names_sum(isolated):
    import anygpu.torch as agt
    acc = agt.Accelerator()
    with pytest.raises(ValueError, match="anygpu calls that reduction='sum'"):
        acc.reduce(torch.ones(1), "none")
    with pytest.raises(ValueError, match="multiply the reduced result"):
        acc.reduce(torch.ones(1), scale=2.0)


def test_skip_first_batches_needs_a_prepared_loader(isolated):
    import anygpu.torch as agt
    acc = agt.Accelerator()
    with pytest.raises(TypeError, match="a loader that prepare\\(\\) returned"):
        acc.skip_first_batches(DataLoader(list(range(8)), batch_size=2), 1)


def test_skip_first_batches_after_load_state(isolated, tmp_path):
    """anygpu's load_state already positions the loader: the same position again is a no-op,
    another one an error saying so."""
    import anygpu.torch as agt
    data = TensorDataset(torch.arange(16))

    def prepared():
        acc = agt.Accelerator(seed=1)
        return acc, acc.prepare(DataLoader(data, batch_size=2, shuffle=True))

    acc, loader = prepared()
    it = iter(loader)
    order = [next(it)[0].tolist() for _ in range(3)]
    acc.save_state(tmp_path / "ckpt")
    order += [b.tolist() for (b,) in it]
    acc, loader = prepared()
    acc.load_state(tmp_path / "ckpt")
    with pytest.raises(ValueError, match="drop the call or pass 3"):
        acc.skip_first_batches(loader, 2)
    assert [b.tolist() for (b,) in acc.skip_first_batches(loader, 3)] == order[3:]
