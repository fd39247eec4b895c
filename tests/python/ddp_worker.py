"""One rank of the two-process test in test_ddp.py: trains through Accelerator and writes what
the test compares (losses, the sample indices it saw, the final parameters) to OUT/rank<R>.pt."""
import os
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

import anygpu
import anygpu.torch as agt


def main(out_dir: str) -> None:
    acc = agt.Accelerator()
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1024, 16, generator=g)
    y = (x @ torch.randn(16, 4, generator=g)).argmax(1)
    data = TensorDataset(torch.arange(1024), x, y)
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model, opt, loader = acc.prepare(model, opt, DataLoader(data, batch_size=64, shuffle=True))
    losses, seen = [], []
    for _ in range(3):
        total = torch.zeros(())
        for i, xb, yb in loader:
            seen.append(i)
            opt.zero_grad()
            with acc.autocast():
                loss = torch.nn.functional.cross_entropy(model(xb).float(), yb)
            acc.backward(loss)
            acc.step(opt)
            total += loss.detach()
        losses.append(acc.reduce_mean(total / len(loader)).item())
    params = torch.cat([p.detach().flatten() for p in acc.unwrap(model).parameters()])
    torch.save({"selection": anygpu.select(), "rank": acc.rank, "world": acc.world_size, "backend": acc.dist_backend,
                "losses": losses, "seen": torch.cat(seen[:len(loader)]), "params": params},
               f"{out_dir}/rank{acc.rank}.pt")
    acc.end()
    # torch 1.13's gloo process group can deadlock in the DDP Reducer's destructor at
    # interpreter exit (a gloo thread waits for the GIL the destructor holds, seen in gdb):
    # everything is saved, so leave without that teardown.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1])
