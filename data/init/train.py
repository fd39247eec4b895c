#!/usr/bin/env python3
"""Train a small model on whatever accelerator this host has; the code names no vendor.

    anygpu run -- python3 train.py                        # one process
    anygpu run --nproc-per-node auto -- python3 train.py  # one process per selected device
"""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import anygpu.torch as agt


def main() -> None:
    acc = agt.Accelerator()  # device, mixed precision and distribution from `anygpu select`
    torch.manual_seed(0)
    x = torch.randn(8192, 32)
    y = (x @ torch.randn(32, 4)).argmax(dim=1)
    loader = DataLoader(TensorDataset(x, y), batch_size=256, shuffle=True, drop_last=True,
                        num_workers=agt.num_workers())
    model = nn.Sequential(nn.Linear(32, 128), nn.GELU(), nn.Linear(128, 4))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model, optimizer, loader = acc.prepare(model, optimizer, loader)
    loss_fn = nn.CrossEntropyLoss()
    acc.print(f"device {acc.device} precision {acc.precision} processes {acc.world_size}")
    for epoch in range(3):
        for xb, yb in loader:  # batches arrive on acc.device
            optimizer.zero_grad(set_to_none=True)
            with acc.autocast():
                loss = loss_fn(model(xb), yb)
            acc.backward(loss)
            acc.step(optimizer)
        acc.print(f"epoch {epoch + 1} loss {acc.reduce_mean(loss.detach()).item():.4f}")
    acc.end()


if __name__ == "__main__":
    main()
