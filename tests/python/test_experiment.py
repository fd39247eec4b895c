"""The experiment layer end to end in real processes (CPU, gloo): tests/python/experiment.py
under `anygpu run` with 1 and 2 processes and under plain torchrun. Resuming from a checkpoint
in fresh processes must reproduce the uninterrupted run bit for bit."""
import os

import pytest
import torch

from conftest import BINARY, PYTHON, REPO, clean_env, rendezvous_port, run_launch

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "experiment.py")


def _launch(tmp_path, launcher, world, mode):
    out, ckpt = tmp_path / "out", tmp_path / "ckpt"
    out.mkdir(exist_ok=True)
    if launcher == "torchrun":
        # Python 3.11 with torch 1.13's torchrun needs --redirects/--tee (see docs/run.md).
        argv = [PYTHON, "-m", "torch.distributed.run", "--nproc_per_node", str(world),
                "--redirects", "1", "--tee", "1", "--master_port", str(rendezvous_port())]
    else:
        config = tmp_path / "accelerator-config.yaml"
        config.write_text("backend: cpu\n")
        argv = [BINARY, "run", "--config", str(config)]
        if world > 1:
            argv += ["--nproc-per-node", str(world), "--master-port", str(rendezvous_port())]
        argv.append("--")
        argv.append(PYTHON)
    proc = run_launch(argv + [SCRIPT, mode, str(out), str(ckpt)], env=clean_env(),
                      timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return [torch.load(out / f"{mode}-rank{r}.pt") for r in range(world)]


@pytest.fixture(scope="module", params=[("anygpu", 1), ("anygpu", 2), ("torchrun", 2)],
                ids=lambda p: f"{p[0]}-{p[1]}")
def runs(request, tmp_path_factory):
    launcher, world = request.param
    tmp = tmp_path_factory.mktemp(f"{launcher}{world}")
    full = _launch(tmp, launcher, world, "full")
    checkpoint = sorted(os.listdir(tmp / "ckpt"))
    resumed = _launch(tmp, launcher, world, "resume")
    return launcher, world, full, resumed, checkpoint


def test_resume_in_fresh_processes_equals_the_uninterrupted_run(runs):
    _, world, full, resumed, checkpoint = runs
    assert [f"rng_rank{r}.pt" for r in range(world)] == [c for c in checkpoint if "rng" in c]
    assert {"model_0.pt", "optimizer_0.pt", "scheduler_0.pt", "loader_0.pt",
            "anygpu-state.json"} <= set(checkpoint)
    for a, b in zip(full, resumed):
        ta, tb = a["training"], b["training"]
        assert torch.equal(ta["params"], tb["params"]), (ta["params"] - tb["params"]).abs().max()
        assert ta["losses"][-len(tb["losses"]):] == tb["losses"]
        assert torch.equal(ta["rng"], tb["rng"]) and ta["epoch"] == tb["epoch"]
    assert all(torch.equal(full[0]["training"]["params"], f["training"]["params"]) for f in full)
    if world > 1:  # the ranks shuffled differently each epoch yet trained one model
        assert full[0]["training"]["losses"] != full[1]["training"]["losses"]


def test_gather_for_metrics_drops_the_padding(runs):
    _, world, full, _, _ = runs
    for r in full:
        m = r["metrics"]
        assert sorted(m["seen"].tolist()) == list(range(101))
        assert sorted(m["names"]) == sorted(f"s{i}" for i in range(101))
        assert len(m["padded"]) == 101 + (-101 % world)  # gather() keeps what ranks computed
        assert m["reduced"].item() == world * (world + 1) / 2
        assert m["broadcast"].tolist() == [0]


def test_a_custom_samplers_subset_is_respected_and_shuffled(runs):
    _, world, full, _, _ = runs
    seen = [r["subset"]["seen"].tolist() for r in full]
    union = [i for s in seen for i in s]
    assert sorted(union) == list(range(1024, 2048))  # nothing from outside, nothing twice
    assert all(s != sorted(s) for s in seen)
    assert all(r["subset"]["len"] == 1024 // 64 // world for r in full)


def test_accumulation_equals_the_large_batch_gradient(runs):
    _, world, full, _, _ = runs
    for r in full:
        a = r["accumulation"]
        assert a["syncs"] == [False, False, False, True]
        for got, want in zip(a["grads"], a["reference"]):
            assert torch.allclose(got, want, atol=1e-6), (got, want)


def test_batch_encoding_like_batches_move(runs):
    _, world, full, _, _ = runs
    for r in full:
        b = r["batches"]
        assert b["kinds"] == [("Encoding", "UserDict", "cpu")] * (2 // world)
        assert b["moved_to"] == ["cpu"] * (2 // world)


_FIRST_PARAMS = {}


def test_both_launchers_train_the_same_model(runs):
    launcher, world, full, _, _ = runs
    params = full[0]["training"]["params"]
    earlier = _FIRST_PARAMS.setdefault(world, (launcher, params))
    assert torch.equal(earlier[1], params), f"{launcher} and {earlier[0]} trained differently"
