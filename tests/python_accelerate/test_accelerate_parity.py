"""The same training loop (parity_train.py: an MLP and a small transformer, a shuffled
DataLoader, AdamW and LinearLR, gradient accumulation, bf16 autocast, a checkpoint saved
mid-epoch, gather_for_metrics over an uneven evaluation set) under `accelerate launch` with
accelerate.Accelerator and under `anygpu run` with anygpu.torch.Accelerator, with 1 and 2
processes on the CPU. Both must record the same loss at every micro-batch and the same metrics
(within 1e-5 relative), and a run resumed in fresh processes must equal the uninterrupted one.

With 2 processes in bf16 the loader is a batch sampler: a plain `shuffle=True` loader is
sharded by sample under anygpu and by whole batch under accelerate (docs/python.md). Every
optimizer step then averages the same samples, which full precision reproduces to rounding
(checked here at 2 processes), but bf16 rounds each rank's partial gradient sums, so the two
partitions drift apart by about 1e-4: a real difference of sharding, not of the frameworks."""
import pytest
import torch

from conftest import launch

TOLERANCE = 1e-5
MODELS = ("mlp", "transformer")
# (processes, precision, loader)
CASES = [(1, "fp32", "shuffle"), (1, "bf16", "shuffle"), (2, "fp32", "shuffle"),
         (2, "bf16", "batch-sampler")]
MICRO_BATCHES = {1: 24, 2: 12}  # 2 epochs of 96 samples in batches of 8 per process
RESUMED = {1: 10, 2: 4}  # saved after micro-batch 2 of epoch 1


def _train(tmp_path, framework, world, precision, loader, mode):
    launch(tmp_path, framework, world, "parity_train.py",
           [framework, precision, loader, mode, tmp_path, tmp_path / f"ckpt-{framework}"])
    return torch.load(tmp_path / f"{framework}-{mode}.pt")


@pytest.fixture(scope="module", params=CASES, ids=lambda c: f"{c[0]}proc-{c[1]}-{c[2]}")
def runs(request, tmp_path_factory):
    world, precision, loader = request.param
    tmp = tmp_path_factory.mktemp(f"parity-{world}-{precision}")
    out = {}
    for framework in ("accelerate", "anygpu"):
        out[framework] = {mode: _train(tmp, framework, world, precision, loader, mode)
                          for mode in ("full", "resume")}
    return world, precision, out


def _relative(a, b):
    a, b = torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64)
    return ((a - b).abs() / b.abs().clamp_min(1e-12)).max().item()


def test_both_ran_what_was_asked(runs):
    world, precision, out = runs
    for framework, modes in out.items():
        for mode, result in modes.items():
            assert result["world"] == world, (framework, mode, result["world"])
            for kind in MODELS:
                r = result[kind]
                expected = MICRO_BATCHES[world] if mode == "full" else RESUMED[world]
                assert len(r["losses"]) == expected, (framework, mode, kind, len(r["losses"]))
                enabled, dtype = r["autocast"]
                assert enabled == (precision == "bf16"), (framework, kind, r["autocast"])
                if enabled:
                    assert dtype == "torch.bfloat16", (framework, kind, dtype)
                assert r["metrics"]["seen"] == 37  # no padding duplicates counted


@pytest.mark.parametrize("kind", MODELS)
def test_losses_and_metrics_agree(runs, kind):
    _, _, out = runs
    a, b = out["accelerate"]["full"][kind], out["anygpu"]["full"][kind]
    assert _relative(a["losses"], b["losses"]) <= TOLERANCE, (a["losses"], b["losses"])
    assert a["metrics"]["accuracy"] == b["metrics"]["accuracy"], (a["metrics"], b["metrics"])
    assert _relative([a["metrics"]["loss"]], [b["metrics"]["loss"]]) <= TOLERANCE
    assert a["lr"] == pytest.approx(b["lr"], rel=1e-12)
    assert a["losses"][-1] < a["losses"][0]  # it trained


@pytest.mark.parametrize("framework", ("accelerate", "anygpu"))
def test_resumed_run_equals_the_uninterrupted_one(runs, framework):
    _, _, out = runs
    full, resumed = out[framework]["full"], out[framework]["resume"]
    for kind in MODELS:
        f, r = full[kind], resumed[kind]
        assert f["losses"][-len(r["losses"]):] == r["losses"], (kind, f["losses"], r["losses"])
        assert torch.equal(f["params"], r["params"]), kind
        assert f["metrics"] == r["metrics"], kind

