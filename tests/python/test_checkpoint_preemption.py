"""Checkpoints that survive preemption: a save killed at any point leaves the last good
checkpoint loadable and its partial directory removed by the next save or load; a checkpoint
of N processes loads on M at an epoch boundary and is refused mid-epoch with the way out."""
import os
import subprocess

import pytest
import torch

from conftest import BINARY, PYTHON, clean_env, rendezvous_port, run_launch

HERE = os.path.dirname(os.path.abspath(__file__))

# Saves weights 1 (the good checkpoint), then weights 2 with the process dying (os._exit: like
# SIGKILL, no cleanup runs) at the N-th call of one step of the save.
KILLED_SAVE = """
import os, sys, torch
import anygpu.torch as agt
from anygpu.torch import _state
target, step, n, exchange = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
acc = agt.Accelerator()
model = acc.prepare(torch.nn.Linear(2, 2))
with torch.no_grad():
    model.weight.fill_(1.0)
acc.save_state(target)
with torch.no_grad():
    model.weight.fill_(2.0)
if not exchange:  # a file system without RENAME_EXCHANGE (NFS): the two-rename swap
    _state._exchange = lambda a, b: False
calls = [0]
def dying(real):
    def call(*args, **kwargs):
        calls[0] += 1
        if calls[0] > n:
            os._exit(137)
        return real(*args, **kwargs)
    return call
if step == "write":
    _state._fsync_write = dying(_state._fsync_write)
elif step == "rename":
    os.rename = dying(os.rename)
elif step == "rmtree":
    _state.shutil.rmtree = dying(_state.shutil.rmtree)
acc.save_state(target)
print("completed")
"""

LOAD = """
import sys, torch
import anygpu.torch as agt
acc = agt.Accelerator()
model = acc.prepare(torch.nn.Linear(2, 2))
acc.load_state(sys.argv[1])
print(float(model.weight[0, 0]))
"""

SAVE_AGAIN = """
import sys, torch
import anygpu.torch as agt
acc = agt.Accelerator()
acc.prepare(torch.nn.Linear(2, 2))
acc.save_state(sys.argv[1])
"""

# (step, calls that succeed before the kill, exchange available, weight the load must see).
# Four files are written (accelerator, model, manifest, RNG); the swap is one exchange, or two
# renames (previous -> .old, staging -> target) where the file system lacks it.
KILL_POINTS = [("write", n, True, 1.0) for n in range(4)] + [
    ("rename", 0, False, 1.0),  # before the previous checkpoint moved aside
    ("rename", 1, False, 2.0),  # between the renames: the target is missing, staging complete
    ("rmtree", 0, False, 2.0),  # swapped; the .old copy not yet removed
    ("rmtree", 0, True, 2.0),  # exchanged; the previous checkpoint not yet removed
]


def _script(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("step,n,exchange,weight", KILL_POINTS,
                         ids=[f"{s}{n}-{'exchange' if e else 'renames'}"
                              for s, n, e, _ in KILL_POINTS])
def test_a_killed_save_leaves_the_last_good_checkpoint(tmp_path, step, n, exchange, weight):
    work = tmp_path / "work"
    work.mkdir()
    target = work / "ckpt"
    killed = run_python_file(_script(tmp_path, "killed.py", KILLED_SAVE), str(target), step,
                             str(n), "1" if exchange else "0")
    assert killed.returncode == 137 and "completed" not in killed.stdout, killed.stderr[-2000:]
    loaded = run_python_file(_script(tmp_path, "load.py", LOAD), str(target))
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert float(loaded.stdout.split()[-1]) == weight
    assert sorted(os.listdir(work)) == ["ckpt"]  # the load removed what the kill left


def test_the_next_save_removes_what_a_killed_save_left(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    target = work / "ckpt"
    killed = run_python_file(_script(tmp_path, "killed.py", KILLED_SAVE), str(target), "write",
                             "2", "1")
    assert killed.returncode == 137
    assert len(os.listdir(work)) == 2  # ckpt and .ckpt.partial-…
    again = run_python_file(_script(tmp_path, "again.py", SAVE_AGAIN), str(target))
    assert again.returncode == 0, again.stderr[-2000:]
    assert sorted(os.listdir(work)) == ["ckpt"]


def run_python_file(path, *args):
    return subprocess.run([PYTHON, path, *args], env=clean_env(), capture_output=True, text=True,
                          timeout=120)


def _launch(tmp_path, world, mode):
    out, ckpt = tmp_path / "out", tmp_path / "ckpt"
    out.mkdir(exist_ok=True)
    config = tmp_path / "accelerator-config.yaml"
    config.write_text("backend: cpu\n")
    argv = [BINARY, "run", "--config", str(config)]
    if world > 1:
        argv += ["--nproc-per-node", str(world), "--master-port", str(rendezvous_port())]
    argv += ["--", PYTHON, os.path.join(HERE, "checkpoint_world.py"), mode, str(out), str(ckpt)]
    return run_launch(argv, env=clean_env(), timeout=300, cwd=tmp_path)


def test_two_processes_checkpoint_loads_on_one_at_an_epoch_boundary(tmp_path):
    saved = _launch(tmp_path, 2, "save")
    assert saved.returncode == 0, saved.stdout[-3000:] + saved.stderr[-3000:]
    loaded = _launch(tmp_path, 1, "load")
    assert loaded.returncode == 0, loaded.stdout[-3000:] + loaded.stderr[-3000:]
    assert "ranks from 2 on" not in loaded.stderr  # rank 0 had its own random state
    before = torch.load(tmp_path / "out" / "save-rank0.pt")
    after = torch.load(tmp_path / "out" / "load-rank0.pt")
    assert before["world"] == 2 and after["world"] == 1
    assert torch.equal(before["params"], after["params"]) and before["epoch"] == after["epoch"]
    assert all(torch.equal(a, b) for a, b in zip(before["exp_avg"], after["exp_avg"]))


def test_one_process_checkpoint_loads_on_two_seeding_the_new_rank(tmp_path):
    saved = _launch(tmp_path, 1, "save")
    assert saved.returncode == 0, saved.stdout[-3000:] + saved.stderr[-3000:]
    loaded = _launch(tmp_path, 2, "load")
    assert loaded.returncode == 0, loaded.stdout[-3000:] + loaded.stderr[-3000:]
    assert "ranks from 1 on have no saved random state" in loaded.stderr
    before = torch.load(tmp_path / "out" / "save-rank0.pt")
    for r in (0, 1):
        after = torch.load(tmp_path / "out" / f"load-rank{r}.pt")
        assert torch.equal(before["params"], after["params"])


def test_a_mid_epoch_checkpoint_is_refused_on_another_count_naming_the_way_out(tmp_path):
    saved = _launch(tmp_path, 2, "save-mid")
    assert saved.returncode == 0, saved.stdout[-3000:] + saved.stderr[-3000:]
    loaded = _launch(tmp_path, 1, "load")
    assert loaded.returncode != 0
    assert "saved by 2 processes in the middle of an epoch (loader 0: epoch 0, batch 1)" \
        in loaded.stderr and "Resume with 2 processes" in loaded.stderr, loaded.stderr[-3000:]


PREEMPTION = """
import os, signal
import anygpu.torch as agt
before = signal.getsignal(signal.SIGTERM)
with agt.Preemption() as p:
    first = p.requested()
    os.kill(os.getpid(), signal.SIGTERM)  # noted, not fatal
    print(first, p.requested(), p.received == signal.SIGTERM)
print(signal.getsignal(signal.SIGTERM) is before)
"""


def test_preemption_notes_sigterm_and_restores_the_handler(tmp_path):
    proc = run_python_file(_script(tmp_path, "preemption.py", PREEMPTION))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["False", "True", "True", "True"]
