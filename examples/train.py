#!/usr/bin/env python3
"""A small classifier trained on synthetic data, on whatever accelerator the host has.

The code names no device and no vendor: anygpu.torch picks the device, the precision, the
distributed backend and the data-loader workers from the selection `anygpu run` (or, when run
directly, `anygpu select`) made for this host. The same file runs on one CPU, on eight GPUs
under `anygpu run --nproc-per-node auto`, or across a Slurm allocation.

    anygpu run -- python3 examples/train.py --epochs 2
    anygpu run --nproc-per-node 2 -- python3 examples/train.py --epochs 1
"""
import argparse
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import anygpu.torch as agt


def synthetic_dataset(samples: int, features: int, classes: int, seed: int) -> TensorDataset:
    """Inputs from a fixed random teacher network: learnable, identical on every rank."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(samples, features, generator=g)
    teacher = torch.randn(features, classes, generator=g)
    y = (x @ teacher + 0.5 * torch.randn(samples, classes, generator=g)).argmax(dim=1)
    return TensorDataset(x, y)


def build_model(features: int, hidden: int, classes: int) -> nn.Module:
    return nn.Sequential(
        nn.Linear(features, hidden), nn.GELU(), nn.LayerNorm(hidden),
        nn.Linear(hidden, hidden), nn.GELU(),
        nn.Linear(hidden, classes))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--samples", type=int, default=16384)
    p.add_argument("--batch-size", type=int, default=256, help="per process")
    p.add_argument("--features", type=int, default=64)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--workers", type=int, default=None,
                   help="data-loader workers (default: anygpu.torch.num_workers())")
    p.add_argument("--precision", choices=["auto", "fp32"], default="auto",
                   help="auto: the mixed precision the device supports best")
    p.add_argument("--compile", action="store_true", help="torch.compile the model if possible")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    acc = agt.Accelerator(mixed_precision=args.precision == "auto")
    torch.manual_seed(args.seed)  # same initial weights on every rank
    data = synthetic_dataset(args.samples, args.features, args.classes, args.seed)
    workers = agt.num_workers() if args.workers is None else args.workers
    loader = DataLoader(data, batch_size=args.batch_size, shuffle=True, drop_last=True,
                        num_workers=workers, persistent_workers=workers > 0)
    model = build_model(args.features, args.hidden, args.classes)
    if args.compile:
        model = agt.compile(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    model, optimizer, loader = acc.prepare(model, optimizer, loader)
    loss_fn = nn.CrossEntropyLoss()

    acc.print(f"device {acc.device} precision {acc.precision} processes {acc.world_size} "
              f"distributed backend {acc.dist_backend or 'none'} workers {workers}")
    for epoch in range(1, args.epochs + 1):
        model.train()
        total = torch.zeros((), device=acc.device)
        first = None
        steps = 0
        acc.synchronize()
        start = time.perf_counter()
        for x, y in loader:  # batches arrive on acc.device
            optimizer.zero_grad(set_to_none=True)
            with acc.autocast():
                loss = loss_fn(model(x), y)
            acc.backward(loss)
            acc.step(optimizer)
            total += loss.detach().float()
            if first is None:
                first = loss.item()
            steps += 1
        acc.synchronize()
        elapsed = time.perf_counter() - start
        mean = acc.reduce_mean(total / max(steps, 1)).item()
        samples = steps * args.batch_size * acc.world_size
        acc.print(f"epoch {epoch}/{args.epochs} loss {mean:.4f} first-batch {first:.4f} "
                  f"throughput {samples / elapsed:.0f} samples/s")
    acc.end()


if __name__ == "__main__":
    main()
