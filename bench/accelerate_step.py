#!/usr/bin/env python3
"""One training loop in accelerate's idioms, timed per step, under either Accelerator:

    accelerate launch --cpu --num_processes 1 bench/accelerate_step.py accelerate OUT.json
    anygpu run -- PYTHON bench/accelerate_step.py anygpu OUT.json

A 64 -> 256 -> 256 -> 10 MLP (examples/train.py's sizes, without LayerNorm), batch 64 from a
shuffled DataLoader, AdamW with a LinearLR schedule, `accumulate(model)` with 2 micro-batches,
`autocast()`, `backward`, `clip_grad_norm_` on synced steps. Each step's wall time runs from one
batch's arrival to the next (so the prepared loader's own cost is inside it); rank 0 writes the
median of the steps after WARMUP, in seconds, to OUT.json. bench/accelerate_overhead.sh repeats
this under both launchers and compares the medians.
"""
import json
import statistics
import sys
import time

import torch
from torch.utils.data import DataLoader, TensorDataset

WARMUP, STEPS, SEED = 30, 400, 5


def make_accelerator(framework: str):
    if framework == "accelerate":
        from accelerate import Accelerator
        from accelerate.utils import DataLoaderConfiguration
        return Accelerator(gradient_accumulation_steps=2, step_scheduler_with_optimizer=False,
                           dataloader_config=DataLoaderConfiguration(use_seedable_sampler=True,
                                                                     data_seed=SEED))
    import anygpu.torch as agt
    return agt.Accelerator(gradient_accumulation_steps=2, seed=SEED)


def main(framework: str, out: str) -> None:
    acc = make_accelerator(framework)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 10))
    x = torch.randn(64 * 64, 64)
    data = TensorDataset(x, (x[:, :10] * 3).argmax(1))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=100)
    model, opt, loader, sched = acc.prepare(model, opt, DataLoader(data, batch_size=64,
                                                                   shuffle=True), sched)
    times, last, done = [], None, 0
    while done < WARMUP + STEPS:
        for xb, yb in loader:
            now = time.perf_counter()
            if done > WARMUP:  # arrival to arrival: the loader's part of the step included
                times.append(now - last)
            with acc.accumulate(model):
                with acc.autocast():
                    loss = torch.nn.functional.cross_entropy(model(xb), yb)
                acc.backward(loss)
                if acc.sync_gradients:
                    acc.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                if acc.sync_gradients:
                    sched.step()
                opt.zero_grad()
            done += 1
            last = now
            if done == WARMUP + STEPS:
                break
    if acc.is_main_process:
        with open(out, "w", encoding="utf-8") as f:
            json.dump({"framework": framework, "processes": acc.num_processes,
                       "median_step_s": statistics.median(times), "steps": len(times),
                       "torch": torch.__version__}, f)
    acc.end_training()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
