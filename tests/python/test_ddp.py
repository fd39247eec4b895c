"""Two real processes on the CPU (gloo), launched by `anygpu run --nproc-per-node 2`: the loss
goes down, each rank sees its own half of the data, and both end with the same parameters."""
import os
import re

import torch

from conftest import BINARY, PYTHON, REPO, clean_env, rendezvous_port, run_launch

HERE = os.path.dirname(os.path.abspath(__file__))


def two_processes(tmp_path, *argv):
    # backend: cpu, so the test means the same on a host with GPUs (gloo, two CPU processes).
    config = tmp_path / "accelerator-config.yaml"
    config.write_text("backend: cpu\n")
    return [BINARY, "run", "--config", str(config), "--nproc-per-node", "2", "--master-port",
            str(rendezvous_port()), "--", PYTHON, *argv]


def test_two_ranks_train_and_agree(tmp_path):
    proc = run_launch(two_processes(tmp_path, os.path.join(HERE, "ddp_worker.py"), str(tmp_path)),
                      env=clean_env(PYTHONPATH=os.pathsep.join([os.path.join(REPO, "python"),
                                                               HERE])),
                      timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    r0, r1 = (torch.load(tmp_path / f"rank{r}.pt") for r in (0, 1))
    assert (r0["world"], r1["world"], r0["backend"]) == (2, 2, "gloo")
    # The ranks used the selection `anygpu run` exported, not a probe of their own.
    assert r0["selection"]["source"] == r1["selection"]["source"] == "environment"
    assert r0["selection"]["torch_device"] == "cpu"
    assert r0["losses"] == r1["losses"]  # all-reduced means
    assert r0["losses"][-1] < 0.7 * r0["losses"][0], r0["losses"]
    assert set(r0["seen"].tolist()).isdisjoint(r1["seen"].tolist())
    assert len(r0["seen"]) == len(r1["seen"]) == 512
    assert torch.equal(r0["params"], r1["params"])


def test_example_trains_with_two_processes(tmp_path):
    proc = run_launch(two_processes(tmp_path, os.path.join(REPO, "examples", "train.py"), "--epochs",
                                    "1", "--samples", "4096"),
                      env=clean_env(), timeout=300,
                      cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert re.search(r"processes 2 distributed backend gloo", out), out
    m = re.search(r"epoch 1/1 loss ([\d.]+) first-batch ([\d.]+) throughput (\d+) samples/s", out)
    assert m, out
    assert float(m.group(1)) < float(m.group(2)), out
    assert int(m.group(3)) > 0
