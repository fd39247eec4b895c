"""The preemption recipe of docs/python.md as a job: train STEPS steps, and on SIGTERM save and
exit 0 for the requeued job to resume. Run by tests/e2e/slurm_requeue_test.sh under a real
Slurm with `sbatch --requeue`, and once uninterrupted for comparison.

    preemptible_train.py OUT [STEP_SECONDS]
OUT/ckpt is the checkpoint, OUT/running-<step> marks progress, OUT/final.pt the result.
"""
import os
import sys
import time

import torch
from torch.utils.data import DataLoader, TensorDataset

import anygpu.torch as agt

STEPS = 24


class Progress:
    def __init__(self):
        self.step = 0

    def state_dict(self):
        return {"step": self.step}

    def load_state_dict(self, state):
        self.step = int(state["step"])


def main(out, step_seconds=0.0):
    acc = agt.Accelerator()
    agt.set_seed(0)
    g = torch.Generator().manual_seed(1)
    data = TensorDataset(torch.randn(64, 6, generator=g), torch.randn(64, 1, generator=g))
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Dropout(0.2),
                                torch.nn.Linear(16, 1))
    opt = torch.optim.AdamW(model.parameters(), lr=0.01)
    model, opt, loader = acc.prepare(model, opt, DataLoader(data, batch_size=8, shuffle=True))
    progress = Progress()
    acc.register_for_checkpointing(progress)
    ckpt = os.path.join(out, "ckpt")
    if os.path.isdir(ckpt):
        acc.load_state(ckpt)
        print(f"resumed at step {progress.step} (restart "
              f"{os.environ.get('SLURM_RESTART_COUNT', '0')})", flush=True)
    with agt.Preemption() as preemption:
        while progress.step < STEPS:
            for x, y in loader:
                opt.zero_grad()
                acc.backward(torch.nn.functional.mse_loss(model(x), y))
                opt.step()
                progress.step += 1
                open(os.path.join(out, f"running-{progress.step}"), "w").close()
                time.sleep(step_seconds)
                if preemption.requested():
                    acc.save_state(ckpt)
                    print(f"preempted at step {progress.step}: saved", flush=True)
                    sys.exit(0)
                if progress.step == STEPS:
                    break
    params = torch.cat([p.detach().flatten() for p in acc.unwrap(model).parameters()])
    torch.save({"params": params, "rng": torch.rand(3)}, os.path.join(out, "final.pt"))
    print("finished", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 0.0)
