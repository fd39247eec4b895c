#!/usr/bin/env python3
"""What anygpu.torch adds to one training step: the model and data of examples/train.py
trained by a hand-written loop and through Accelerator.prepare() (sharded loader, device
moves, the scaler-aware optimizer, autocast context), in alternating trials in one process,
with an A/A control (the hand-written loop against itself) giving this machine's noise floor.
Time is the process's CPU time per step (one torch thread, no loader workers): on a shared
machine it moves far less than wall time, and it is what the wrapper costs.

    python_step.py [--trials 7] [--steps 60]    prints a Markdown table and the verdict
Exit status 1 when the wrapper's own cost (measured around a tiny model, where it is not lost
in noise) exceeds 2 % of a step. The end-to-end rows are reported with the A/A control beside
them: on a loaded machine their spread is larger than the effect being looked for.
"""
import argparse
import importlib.util
import os
import statistics
import time

import torch
from torch.utils.data import DataLoader

import anygpu.torch as agt

_spec = importlib.util.spec_from_file_location(
    "example_train", os.path.join(os.path.dirname(__file__), "..", "examples", "train.py"))
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)

GOAL = 0.02


def setup(seed=0, tiny=False):
    torch.manual_seed(seed)
    model = torch.nn.Linear(64, 10) if tiny else example.build_model(64, 256, 10)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    loader = DataLoader(example.synthetic_dataset(16384, 64, 10, seed), batch_size=256,
                        shuffle=True, drop_last=True)
    return model, opt, loader


def plain(steps, tiny=False):
    model, opt, loader = setup(tiny=tiny)
    dev = torch.device("cpu")
    loss_fn = torch.nn.CrossEntropyLoss()
    done, start = 0, None
    while done < steps:
        for xb, yb in loader:
            if done == 10:
                start = time.process_time()  # after warm-up
            xb, yb = xb.to(dev), yb.to(dev)
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            done += 1
            if done == steps:
                break
    return (time.process_time() - start) / (steps - 10)


def wrapped(steps, acc, tiny=False):
    model, opt, loader = setup(tiny=tiny)
    model, opt, loader = acc.prepare(model, opt, loader)
    loss_fn = torch.nn.CrossEntropyLoss()
    done, start = 0, None
    while done < steps:
        for xb, yb in loader:
            if done == 10:
                start = time.process_time()
            opt.zero_grad(set_to_none=True)
            with acc.autocast():
                loss = loss_fn(model(xb), yb)
            acc.backward(loss)
            opt.step()
            done += 1
            if done == steps:
                break
    return (time.process_time() - start) / (steps - 10)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--steps", type=int, default=40)
    args = p.parse_args()
    torch.set_num_threads(1)  # one core: less scheduler noise on a shared machine
    acc = agt.Accelerator(mixed_precision="fp32")
    plain(50), wrapped(50, acc)  # warm caches and allocator
    aa, ab = [], []
    for _ in range(args.trials):  # alternate, so drift hits every side alike
        a1 = plain(args.steps)
        b = wrapped(args.steps, acc)
        acc.free_memory()  # the next trial starts from the same heap
        a2 = plain(args.steps)
        aa.append(a2 / a1 - 1)
        ab.append(b / ((a1 + a2) / 2) - 1)
    # The wrapper's own cost, resolvable on a noisy machine: the same loops around a model
    # too small to matter, where the difference is what the loader, moves, contexts and the
    # optimizer wrapper take per step.
    cost = []
    for _ in range(args.trials):
        cost.append(wrapped(4 * args.steps, acc, tiny=True) - plain(4 * args.steps, tiny=True))
        acc.free_memory()
    step = statistics.median(plain(args.steps) for _ in range(3))
    med_ab, med_aa = statistics.median(ab), statistics.median(aa)
    spread = statistics.median(abs(v) for v in aa)
    med_cost = statistics.median(cost)
    print("| case | median per-step difference | trials |")
    print("|---|---|---|")
    print(f"| A/A: hand-written loop vs itself | {med_aa * 100:+.2f} % "
          f"(median abs {spread * 100:.2f} %) | {args.trials} |")
    print(f"| anygpu.torch Accelerator vs hand-written loop | {med_ab * 100:+.2f} % | "
          f"{args.trials} |")
    print(f"| the wrapper's own cost (tiny model, same loops) | {med_cost * 1e6:+.0f} µs = "
          f"{med_cost / step * 100:+.2f} % of a {step * 1e3:.2f} ms step | {args.trials} |")
    print(f"\ngoal: overhead <= {GOAL * 100:.0f} % of a step of the examples/train.py model")
    ok = med_cost / step <= GOAL
    print("PASSED" if ok else "FAILED")
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
