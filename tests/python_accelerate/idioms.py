"""accelerate's idioms, written once, run by accelerate.Accelerator (under `accelerate launch`)
or anygpu.torch.Accelerator (under `anygpu run`), 2 processes. Each rank writes what it saw to
OUT/<FRAMEWORK>-rank<R>.pt; test_accelerate_idioms.py compares the two frameworks.

    idioms.py FRAMEWORK OUT
"""
import os
import sys

import torch
from torch.utils.data import BatchSampler, DataLoader, SequentialSampler, TensorDataset

SEED = 3


def make_accelerator(framework: str):
    if framework == "accelerate":
        from accelerate import Accelerator
        from accelerate.utils import DataLoaderConfiguration
        return Accelerator(gradient_accumulation_steps=2, dataloader_config=DataLoaderConfiguration(
            use_seedable_sampler=True, data_seed=SEED))
    import anygpu.torch as agt
    return agt.Accelerator(gradient_accumulation_steps=2, seed=SEED)


def grads(acc, model):
    return [p.grad.detach().clone() for p in acc.unwrap_model(model).parameters()]


def accumulation_and_no_sync(acc):
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(32, 3) + torch.arange(32.0)[:, None] / 8  # ranks see different data
    data = TensorDataset(x, x.sum(1, keepdim=True))
    # Sharded by whole batch under both (a batch_size loader is sharded by sample under anygpu),
    # so each rank's local gradients can be compared too.
    loader = DataLoader(data, batch_sampler=BatchSampler(SequentialSampler(data), 4, False))
    model, opt, loader = acc.prepare(model, opt, loader)
    seen = {"syncs": [], "grads": [], "params": []}
    for i, (xb, yb) in enumerate(loader):
        with acc.accumulate(model):
            acc.backward(torch.nn.functional.mse_loss(model(xb), yb))
            seen["syncs"].append(acc.sync_gradients)
            seen["grads"].append(grads(acc, model))
            opt.step()
            opt.zero_grad()
        seen["params"].append([p.detach().clone() for p in acc.unwrap_model(model).parameters()])
        if i == 3:
            break
    opt.zero_grad()
    xb, yb = next(iter(loader))
    with acc.no_sync(model):  # local gradients only
        acc.backward(torch.nn.functional.mse_loss(model(xb), yb))
    seen["no_sync"] = grads(acc, model)
    acc.backward(torch.nn.functional.mse_loss(model(xb), yb))  # all-reduced, with the above
    seen["after_no_sync"] = grads(acc, model)
    return seen


def epochs_and_skipping(acc):
    loader = acc.prepare(DataLoader(TensorDataset(torch.arange(32)), batch_size=4, shuffle=True))
    out = {}
    for epoch in (0, 1):
        loader.set_epoch(epoch)
        out[f"epoch{epoch}"] = [acc.gather(b).tolist() for (b,) in loader]
    loader.set_epoch(0)  # replays epoch 0's order
    out["epoch0_again"] = [acc.gather(b).tolist() for (b,) in loader]
    loader.set_epoch(1)
    out["epoch1_skip2"] = [acc.gather(b).tolist() for (b,) in acc.skip_first_batches(loader, 2)]
    loader.set_epoch(1)
    out["epoch1_after_skipping"] = [acc.gather(b).tolist() for (b,) in loader]
    return out


def collectives(acc):
    mine = torch.tensor([acc.process_index + 1.0, 10.0 * (acc.process_index + 1)])
    return {"sum": acc.reduce(mine, "sum"), "mean": acc.reduce(mine, "mean"),
            "max": acc.reduce(mine, "max"), "gather": acc.gather(mine),
            "gather_nested": acc.gather({"a": mine[:1], "b": (mine[1:],)}),
            "mine": mine}


def main(framework, out):
    acc = make_accelerator(framework)
    result = {"world": acc.num_processes, "rank": acc.process_index,
              "local": acc.local_process_index, "main": acc.is_main_process,
              "accumulation": accumulation_and_no_sync(acc), "loaders": epochs_and_skipping(acc),
              "collectives": collectives(acc)}
    torch.save(result, f"{out}/{framework}-rank{acc.process_index}.pt")
    acc.wait_for_everyone()
    acc.end_training()
    # torch 2.x's gloo run-loop thread can still be dropping the last collective's tensors
    # while CPython finalizes; taking the GIL then aborts the process ("terminate called
    # without an active exception", SIGABRT: pytorch/pytorch#190489). It hit the accelerate
    # reference runs about once in 20. Both frameworks' runs leave without finalizing, alike.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main(*sys.argv[1:3])
