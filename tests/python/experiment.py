"""An accelerate-style experiment, run by test_experiment.py under `anygpu run` (1 and 2
processes) and plain torchrun. Each rank writes what the test compares to OUT/<mode>-rank<R>.pt.

    experiment.py full OUT CKPT      checks, then trains STEPS steps, saving CKPT at SAVE_AT
    experiment.py resume OUT CKPT    fresh processes: load CKPT, train on to STEPS
"""
import collections
import sys

import torch
from torch.utils.data import DataLoader, SubsetRandomSampler, TensorDataset

import anygpu.torch as agt

STEPS, SAVE_AT, BATCH = 14, 5, 8  # 64 samples / (8 x ranks) per epoch: the save is mid-epoch


def model_and_data():
    agt.set_seed(0)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(64, 6, generator=g)
    y = (x @ torch.randn(6, 3, generator=g)).argmax(1)
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Dropout(0.3),
                                torch.nn.Linear(16, 3))
    return model, TensorDataset(x, y)


def training(ckpt, resume):
    acc = agt.Accelerator()  # its own: a checkpoint holds what this Accelerator prepared
    model, data = model_and_data()
    opt = torch.optim.AdamW(model.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.7)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True)
    model, opt, loader, sched = acc.prepare(model, opt, loader, sched)
    step = 0
    if resume:
        acc.load_state(ckpt)
        step = SAVE_AT
    losses = []
    while step < STEPS:
        for x, y in loader:
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            acc.backward(loss)
            opt.step()
            sched.step()
            losses.append(loss.item())
            step += 1
            if step == SAVE_AT and not resume:
                acc.save_state(ckpt)
            if step == STEPS:
                break
    params = torch.cat([p.detach().flatten() for p in acc.unwrap(model).parameters()]).cpu()
    return {"params": params, "losses": losses, "epoch": loader.epoch, "rng": torch.rand(3)}


def accumulation(acc, world):
    """One optimizer step over 4 micro-batches of 4 per rank against one batch of 16 x world."""
    torch.manual_seed(3)
    x, y = torch.randn(64, 6), torch.randn(64, 1)
    big = torch.nn.Linear(6, 1)
    small = torch.nn.Linear(6, 1)
    small.load_state_dict(big.state_dict())
    n = 16 * world
    torch.nn.functional.mse_loss(big(x[:n]), y[:n]).backward()
    acc4 = agt.Accelerator(gradient_accumulation_steps=4)
    model, opt, loader = acc4.prepare(small, torch.optim.SGD(small.parameters(), lr=0.1),
                                      DataLoader(TensorDataset(x, y), batch_size=4))
    grads, syncs = None, []
    for i, (xb, yb) in enumerate(loader):
        with acc4.accumulate(model):
            acc4.backward(torch.nn.functional.mse_loss(model(xb), yb))
            syncs.append(acc4.sync_gradients)
            acc4.clip_grad_norm_(model.parameters(), 1e6)
            if acc4.sync_gradients:
                grads = [p.grad.detach().clone().cpu() for p in acc4.unwrap(model).parameters()]
            opt.step()
            opt.zero_grad()
        if i == 3:
            break
    return {"grads": grads, "reference": [p.grad.clone() for p in big.parameters()],
            "syncs": syncs}


def metrics(acc):
    """Evaluation over 101 samples: gathered predictions without the padding duplicates."""
    x = torch.arange(101, dtype=torch.float32)[:, None]
    loader = acc.prepare(DataLoader(TensorDataset(torch.arange(101), x), batch_size=8))
    seen, padded, names = [], [], []
    for idx, xb in loader:
        seen.append(acc.gather_for_metrics(idx).cpu())
        padded.append(acc.gather(idx).cpu())
        names += acc.gather_for_metrics([f"s{i}" for i in idx.tolist()])
    total = acc.reduce(torch.tensor([acc.rank + 1.0], device=acc.device)).cpu()
    sent = acc.broadcast(torch.tensor([acc.rank], device=acc.device)).cpu()
    return {"seen": torch.cat(seen), "padded": torch.cat(padded), "names": names,
            "reduced": total, "broadcast": sent}


def subset(acc):
    """A SubsetRandomSampler over 1024 of 2048 samples keeps its subset, shuffled."""
    data = TensorDataset(torch.arange(2048))
    sampler = SubsetRandomSampler(list(range(1024, 2048)))
    loader = acc.prepare(DataLoader(data, batch_size=64, sampler=sampler))
    return {"seen": torch.cat([b.cpu() for (b,) in loader]), "len": len(loader)}


class Encoding(collections.UserDict):
    """Like transformers' BatchEncoding: a UserDict that moves itself with .to()."""

    moved_to = []

    def to(self, dev):
        Encoding.moved_to.append(str(dev))
        self.data = {k: v.to(dev) for k, v in self.data.items()}
        return self


def batches(acc):
    rows = [{"ids": torch.tensor([i])} for i in range(4)]
    loader = acc.prepare(DataLoader(rows, batch_size=2, collate_fn=lambda b: (
        Encoding({"ids": torch.cat([r["ids"] for r in b])}),
        collections.UserDict({"ids": torch.cat([r["ids"] for r in b])}))))
    kinds = [(type(e).__name__, type(u).__name__, str(e["ids"].device.type)) for e, u in loader]
    return {"kinds": kinds, "moved_to": Encoding.moved_to}


def main(mode, out, ckpt):
    acc = agt.Accelerator()
    result = {"world": acc.world_size, "rank": acc.rank, "backend": acc.dist_backend}
    if mode == "full":
        result.update(accumulation=accumulation(acc, acc.world_size), metrics=metrics(acc),
                      subset=subset(acc), batches=batches(acc))
    result["training"] = training(ckpt, resume=mode == "resume")
    torch.save(result, f"{out}/{mode}-rank{acc.rank}.pt")
    acc.end()


if __name__ == "__main__":
    main(*sys.argv[1:4])
