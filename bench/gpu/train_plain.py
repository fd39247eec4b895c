#!/usr/bin/env python3
"""The loop of examples/train.py written by hand for one NVIDIA GPU, as experiment code looks
without anygpu: torch.device("cuda"), torch.autocast, GradScaler for float16. The model, data
and arguments are those of examples/train.py (imported from it), so a throughput difference is
what anygpu's layer costs. Used by bench/gpu/check.sh; needs a CUDA build of torch and a GPU."""
import argparse
import importlib.util
import os
import time

import torch
from torch import nn
from torch.utils.data import DataLoader

_spec = importlib.util.spec_from_file_location(
    "example_train", os.path.join(os.path.dirname(__file__), "..", "..", "examples", "train.py"))
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)


def native_bf16() -> bool:
    try:  # emulated bfloat16 (before Ampere) is slower than float16
        return torch.cuda.is_bf16_supported(including_emulation=False)
    except TypeError:
        return torch.cuda.is_bf16_supported()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--samples", type=int, default=16384)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--features", type=int, default=64)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    dtype = torch.bfloat16 if native_bf16() else torch.float16
    scaler = torch.cuda.amp.GradScaler() if dtype is torch.float16 else None
    torch.manual_seed(args.seed)
    data = example.synthetic_dataset(args.samples, args.features, args.classes, args.seed)
    loader = DataLoader(data, batch_size=args.batch_size, shuffle=True, drop_last=True,
                        num_workers=args.workers, persistent_workers=args.workers > 0)
    model = example.build_model(args.features, args.hidden, args.classes).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    precision = "bf16" if dtype is torch.bfloat16 else "fp16"
    print(f"device {device} precision {precision} processes 1", flush=True)
    for epoch in range(1, args.epochs + 1):
        total = torch.zeros((), device=device)
        first = None
        steps = 0
        torch.cuda.synchronize()
        start = time.perf_counter()
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device_type="cuda", dtype=dtype):
                loss = loss_fn(model(x), y)
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                optimizer.step()
            total += loss.detach().float()
            if first is None:
                first = loss.item()
            steps += 1
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - start
        mean = (total / max(steps, 1)).item()
        print(f"epoch {epoch}/{args.epochs} loss {mean:.4f} first-batch {first:.4f} "
              f"throughput {steps * args.batch_size / elapsed:.0f} samples/s", flush=True)


if __name__ == "__main__":
    main()
