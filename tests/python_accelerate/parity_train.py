"""One training loop, written in accelerate's idioms, run by either accelerate.Accelerator
(`accelerate launch --cpu --num_processes N parity_train.py accelerate ...`) or
anygpu.torch.Accelerator (`anygpu run --nproc-per-node N -- python parity_train.py anygpu ...`).

    parity_train.py FRAMEWORK PRECISION LOADER full   OUT CKPT   trains, saving CKPT mid-epoch
    parity_train.py FRAMEWORK PRECISION LOADER resume OUT CKPT   fresh processes: load, go on

LOADER is `shuffle` (DataLoader(shuffle=True, batch_size=8)) or `batch-sampler`
(DataLoader(batch_sampler=BatchSampler(RandomSampler(data), 8, False))).

For each model (a small MLP, a small transformer encoder) it trains EPOCHS epochs on a shuffled
DataLoader with AdamW, a LinearLR schedule, gradient accumulation and (PRECISION=bf16) bf16
autocast, then evaluates on an uneven set with gather_for_metrics. Rank 0 writes what the tests
compare to OUT/<FRAMEWORK>-<MODE>.pt: the loss of every micro-batch averaged over the
processes, the evaluation metrics, the final parameters and the step at which the run started.

Both frameworks see the same data order: the loaders shuffle with a generator seeded with
SEED + epoch (accelerate's `use_seedable_sampler`, anygpu's `Accelerator(seed=)`). With several
processes a `shuffle` loader is sharded by sample under anygpu (rank r gets every world-th
index, as DistributedSampler does) and by whole batch under accelerate; a `batch-sampler` loader
is sharded by whole batch under both. The only framework-specific lines are the constructors.
"""
import os
import sys
import time

import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, TensorDataset

SEED, BATCH, ACCUMULATE, EPOCHS = 7, 8, 2, 2
TRAIN, EVAL = 96, 37  # 96 / (8 x 2 ranks) batches per epoch; 37 is uneven on 2 ranks
SAVE_EPOCH, SAVE_POSITION = 1, 2  # saved after the 2nd micro-batch of epoch 1: a group boundary
VOCAB, SEQ, CLASSES, FEATURES = 20, 6, 4, 12


def make_accelerator(framework: str, precision: str):
    if framework == "accelerate":
        from accelerate import Accelerator
        from accelerate.utils import DataLoaderConfiguration
        # step_scheduler_with_optimizer=False: the loop steps the scheduler once per optimizer
        # step itself (accelerate would otherwise step it num_processes times per step).
        return Accelerator(mixed_precision="bf16" if precision == "bf16" else "no",
                           gradient_accumulation_steps=ACCUMULATE,
                           step_scheduler_with_optimizer=False,
                           dataloader_config=DataLoaderConfiguration(use_seedable_sampler=True,
                                                                     data_seed=SEED))
    import anygpu.torch as agt
    return agt.Accelerator(mixed_precision="bf16" if precision == "bf16" else "fp32",
                           gradient_accumulation_steps=ACCUMULATE, seed=SEED)


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(FEATURES, 32), torch.nn.GELU(),
                                       torch.nn.Linear(32, 32), torch.nn.GELU(),
                                       torch.nn.Linear(32, CLASSES))

    def forward(self, x):
        return self.net(x)


class Transformer(torch.nn.Module):
    """Embedding, two encoder layers (no dropout: masks would depend on which rank holds which
    sample, and the frameworks shard differently), mean pooling, a classifier."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, 16)
        layer = torch.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0,
                                                 batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = torch.nn.Linear(16, CLASSES)

    def forward(self, x):
        return self.head(self.encoder(self.embed(x)).mean(1))


def datasets(kind: str):
    g = torch.Generator().manual_seed(11)
    n = TRAIN + EVAL
    if kind == "mlp":
        x = torch.randn(n, FEATURES, generator=g)
        y = (x @ torch.randn(FEATURES, CLASSES, generator=g)).argmax(1)
    else:
        x = torch.randint(0, VOCAB, (n, SEQ), generator=g)
        y = x[:, 0] % CLASSES  # learnable from the first token
    return TensorDataset(x[:TRAIN], y[:TRAIN]), TensorDataset(x[TRAIN:], y[TRAIN:])


def train_loader(data, kind: str):
    if kind == "shuffle":
        return DataLoader(data, batch_size=BATCH, shuffle=True)
    assert kind == "batch-sampler", kind
    return DataLoader(data, batch_sampler=BatchSampler(RandomSampler(data), BATCH, False))


def run(framework, precision, loader_kind, kind, resume, ckpt):
    acc = make_accelerator(framework, precision)
    torch.manual_seed(0)
    model = MLP() if kind == "mlp" else Transformer()
    if resume:  # load_state must restore them, not a lucky re-initialization
        with torch.no_grad():
            for p in model.parameters():
                p.add_(1.0)
    train, held_out = datasets(kind)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=4)
    loader = train_loader(train, loader_kind)
    eval_loader = DataLoader(held_out, batch_size=BATCH)
    model, opt, loader, eval_loader, sched = acc.prepare(model, opt, loader, eval_loader, sched)

    start_epoch, skip = 0, 0
    if resume:
        acc.load_state(ckpt)
        start_epoch, skip = SAVE_EPOCH, SAVE_POSITION
    losses, times, autocast = [], [], None
    for epoch in range(start_epoch, EPOCHS):
        loader.set_epoch(epoch)
        active = acc.skip_first_batches(loader, skip) if epoch == start_epoch and skip else loader
        position = skip if epoch == start_epoch else 0
        model.train()
        for x, y in active:
            began = time.perf_counter()
            with acc.accumulate(model):
                with acc.autocast():
                    logits = model(x)
                    autocast = autocast or (torch.is_autocast_enabled("cpu"),
                                            str(torch.get_autocast_dtype("cpu")))
                loss = torch.nn.functional.cross_entropy(logits.float(), y)
                acc.backward(loss)
                if acc.sync_gradients:
                    acc.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                if acc.sync_gradients:
                    sched.step()
                opt.zero_grad()
            times.append(time.perf_counter() - began)
            losses.append(acc.gather(loss.detach()[None]).mean().item())
            position += 1
            if not resume and (epoch, position) == (SAVE_EPOCH, SAVE_POSITION):
                acc.save_state(ckpt)
    metrics = evaluate(acc, model, eval_loader)
    params = torch.cat([p.detach().float().flatten()
                        for p in acc.unwrap_model(model).parameters()]).cpu()
    return {"losses": losses, "metrics": metrics, "params": params, "times": times,
            "lr": sched.get_last_lr(), "autocast": autocast}, acc


def evaluate(acc, model, eval_loader):
    model.eval()
    correct, loss_sum, seen = 0, 0.0, 0
    with torch.no_grad():
        for x, y in eval_loader:
            with acc.autocast():
                logits = model(x)
            per_sample = torch.nn.functional.cross_entropy(logits.float(), y, reduction="none")
            preds, labels, per_sample = acc.gather_for_metrics((logits.argmax(1), y, per_sample))
            correct += int((preds == labels).sum())
            loss_sum += float(per_sample.double().sum())
            seen += len(labels)
    return {"accuracy": correct / seen, "loss": loss_sum / seen, "seen": seen}


def main(framework, precision, loader_kind, mode, out, ckpt):
    result = {}
    acc = None
    for kind in ("mlp", "transformer"):
        result[kind], acc = run(framework, precision, loader_kind, kind, mode == "resume",
                                f"{ckpt}-{kind}")
    result["world"] = acc.num_processes
    if acc.is_main_process:
        torch.save(result, f"{out}/{framework}-{mode}.pt")
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
    main(*sys.argv[1:7])
