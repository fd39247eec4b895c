"""Accelerator end to end in one process on the CPU."""
import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

import anygpu.torch as agt
import anygpu.torch._amp as amp


def _data(n=512):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(n, 8, generator=g)
    y = (x @ torch.randn(8, 1, generator=g)).squeeze(1)
    return TensorDataset(x, y)


def test_training_loop_reduces_the_loss(isolated, capsys):
    torch.manual_seed(0)
    bf16 = amp._refusal("cpu", torch.bfloat16) == ""
    if bf16:
        acc = agt.Accelerator(mixed_precision="bf16")
    else:  # torch 1.13: CPU autocast has no bfloat16 LayerNorm; fall back, say so, not raise
        with pytest.warns(agt.AnygpuWarning, match="expected scalar type BFloat16"):
            acc = agt.Accelerator(mixed_precision="bf16")
    assert acc.device == agt.device() and acc.is_main_process and acc.is_local_main_process
    assert (acc.rank, acc.world_size, acc.distributed, acc.dist_backend) == (0, 1, False, None)
    assert acc.precision == ("bf16" if bf16 else "fp32")
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.LayerNorm(32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    loader = DataLoader(_data(), batch_size=32, shuffle=True)
    model, opt, loader = acc.prepare(model, opt, loader)
    assert isinstance(loader, agt.PreparedLoader) and isinstance(loader, DataLoader)
    assert len(loader) == 16 and loader.batch_size == 32
    losses = []
    for _ in range(3):
        total = 0.0
        for x, y in loader:
            assert x.device == acc.device
            opt.zero_grad()
            with acc.autocast():
                out = model(x).squeeze(1)
                assert out.dtype is (torch.bfloat16 if bf16 else torch.float32)
                loss = torch.nn.functional.mse_loss(out.float(), y)
            acc.backward(loss)
            acc.step(opt)
            total += loss.item()
        losses.append(total / len(loader))
    acc.synchronize()
    acc.empty_cache()
    assert losses[-1] < 0.5 * losses[0], losses
    assert torch.equal(acc.reduce_mean(torch.tensor(3.0)), torch.tensor(3.0))
    acc.print("only on the main process")
    assert capsys.readouterr().out == "only on the main process\n"
    acc.end()


def test_auto_precision_on_the_cpu_is_full_precision(isolated):
    isolated.setenv("ANYGPU_VENDOR", "cpu")
    isolated.setenv("ANYGPU_TORCH_DEVICE", "cpu")
    acc = agt.Accelerator()
    assert acc.precision == "fp32" and acc.scaler is None
    model = acc.prepare(torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.LayerNorm(8)))
    with acc.autocast():
        assert model(torch.ones(2, 4)).dtype is torch.float32


def test_full_precision_and_unknown_precision(isolated):
    acc = agt.Accelerator(mixed_precision=False)
    assert acc.precision == "fp32" and acc.scaler is None
    with acc.autocast():
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype is torch.float32
    try:
        agt.Accelerator(mixed_precision="fp8")
    except ValueError as e:
        assert "fp8" in str(e)
    else:
        raise AssertionError("fp8 accepted")


def test_prepare_leaves_other_objects_alone(isolated):
    acc = agt.Accelerator()
    opt_like = object()
    assert acc.prepare(opt_like) is opt_like
    batches = [({"x": torch.ones(1)}, [torch.zeros(1)])]
    loader = acc.prepare(DataLoader(batches, batch_size=None))
    (d, l), = list(loader)
    assert d["x"].device == acc.device and isinstance(l, list)
