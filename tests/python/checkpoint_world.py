"""A checkpoint saved by one number of processes and loaded by another, run by
test_checkpoint_preemption.py under `anygpu run`. Each rank writes OUT/<mode>-rank<R>.pt.

    checkpoint_world.py save OUT CKPT       one epoch, then save at its end
    checkpoint_world.py save-mid OUT CKPT   one batch, then save (mid-epoch)
    checkpoint_world.py load OUT CKPT       fresh processes: load CKPT
"""
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

import anygpu.torch as agt


def main(mode, out, ckpt):
    acc = agt.Accelerator()
    agt.set_seed(0)
    g = torch.Generator().manual_seed(1)
    data = TensorDataset(torch.randn(32, 4, generator=g), torch.randn(32, 1, generator=g))
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.AdamW(model.parameters(), lr=0.05)
    model, opt, loader = acc.prepare(model, opt, DataLoader(data, batch_size=4, shuffle=True))
    if mode.startswith("save"):
        for x, y in loader:
            opt.zero_grad()
            acc.backward(torch.nn.functional.mse_loss(model(x), y))
            opt.step()
            if mode == "save-mid":
                break
        acc.save_state(ckpt)
    else:
        acc.load_state(ckpt)
    state = {"params": torch.cat([p.detach().flatten() for p in acc.unwrap(model).parameters()]),
             "exp_avg": [v["exp_avg"].clone() for v in opt.state_dict()["state"].values()],
             "epoch": loader.epoch, "world": acc.world_size}
    torch.save(state, f"{out}/{mode}-rank{acc.rank}.pt")
    acc.end()


if __name__ == "__main__":
    main(*sys.argv[1:4])
