"""Ranks from torchrun / `anygpu run` / Slurm, and data-loader workers."""
import os

import pytest

import anygpu
import anygpu.torch as agt
from anygpu.torch._distributed import first_host
from conftest import run_python


def test_single_process():
    r = agt.ranks({})
    assert (r.rank, r.world_size, r.local_rank, r.source) == (0, 1, 0, "single process")


def test_torchrun_variables():
    r = agt.ranks({"RANK": "5", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "4",
                   "MASTER_ADDR": "n1", "MASTER_PORT": "29500"})
    assert (r.rank, r.world_size, r.local_rank, r.local_world_size) == (5, 8, 1, 4)
    assert (r.master_addr, r.master_port, r.source) == ("n1", 29500, "env")


def test_srun_task_derives_the_master_like_the_native_launcher():
    # What srun exports to each task of a step (Slurm src/common/env.c env_array_for_step).
    r = agt.ranks({"SLURM_JOB_ID": "123456", "SLURM_PROCID": "6", "SLURM_NTASKS": "8",
                   "SLURM_STEP_ID": "0", "SLURM_STEP_NUM_TASKS": "8", "SLURM_LOCALID": "2",
                   "SLURM_STEP_NUM_NODES": "2", "SLURM_JOB_NODELIST": "gpu[07-08,11],cpu1"})
    assert (r.rank, r.world_size, r.local_rank, r.local_world_size) == (6, 8, 2, 4)
    assert r.master_addr == "gpu07"
    assert r.master_port == 20000 + 123456 % 10000
    assert r.source == "slurm"


def test_torchrun_inside_slurm_wins_over_slurm():
    r = agt.ranks({"SLURM_JOB_ID": "1", "SLURM_PROCID": "0", "SLURM_NTASKS": "2", "RANK": "3",
                   "WORLD_SIZE": "4", "MASTER_ADDR": "a", "MASTER_PORT": "1234"})
    assert (r.rank, r.world_size, r.source) == (3, 4, "env")


@pytest.mark.parametrize("nodelist,first", [("n1", "n1"), ("gpu[01-04,07]", "gpu01"),
                                            ("a[3],b[1-2]", "a3"), ("node-7,node-8", "node-7")])
def test_first_host(nodelist, first):
    assert first_host(nodelist) == first


@pytest.mark.parametrize("env,named", [
    ({"RANK": "abc", "WORLD_SIZE": "2"}, 'RANK="abc"'),
    ({"RANK": "2", "WORLD_SIZE": "2", "MASTER_ADDR": "a", "MASTER_PORT": "1"}, "do not fit"),
    ({"RANK": "0", "WORLD_SIZE": "0"}, 'WORLD_SIZE="0"'),
    ({"RANK": "0", "WORLD_SIZE": "2"}, "MASTER_ADDR/MASTER_PORT"),
    ({"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "a", "MASTER_PORT": "x"}, 'MASTER_PORT="x"'),
    ({"SLURM_JOB_ID": "1", "SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "2",
      "SLURM_JOB_NODELIST": "[01-02"}, "SLURM_JOB_NODELIST"),
    ({"SLURM_JOB_ID": "x1", "SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "1"},
     'SLURM_JOB_ID="x1"'),
    ({"SLURM_JOB_ID": "1", "SLURM_PROCID": "2", "SLURM_STEP_NUM_TASKS": "2"}, "does not fit"),
    # A batch script (or salloc shell) of a 2-task job: not one of the job's tasks.
    ({"SLURM_JOB_ID": "7", "SLURM_NTASKS": "2", "SLURM_PROCID": "0"}, "srun"),
    ({"SLURM_JOB_ID": "7", "SLURM_NPROCS": "4"}, "SLURM_NTASKS=4"),
])
def test_malformed_launcher_variables(env, named):
    with pytest.raises(anygpu.InvalidEnvironmentError, match=named.replace("[", "\\[")
                       .replace("(", "\\(")):
        agt.ranks(env)


def test_init_distributed_is_false_for_one_process(isolated):
    import torch
    assert agt.init_distributed() is False
    assert not torch.distributed.is_initialized()


def test_num_workers_from_the_selection_variable(isolated):
    isolated.setenv("ANYGPU_NUM_WORKERS", "7")
    assert agt.num_workers() == 7
    isolated.setenv("ANYGPU_NUM_WORKERS", "0")
    assert agt.num_workers() == 0
    isolated.setenv("ANYGPU_NUM_WORKERS", "abc")
    with pytest.raises(anygpu.InvalidEnvironmentError, match='ANYGPU_NUM_WORKERS="abc"'):
        agt.num_workers()


def test_num_workers_from_the_cpu_affinity():
    # One CPU allowed: one worker whatever the machine has; two processes on one CPU: still 1.
    code = ("import os, anygpu.torch as a; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})"
            "; print(a.num_workers())")
    assert run_python(code).stdout.strip() == "1"
    cpus = len(os.sched_getaffinity(0))
    out = run_python("import anygpu.torch as a; print(a.num_workers())", LOCAL_WORLD_SIZE=2)
    assert int(out.stdout) == max(1, cpus // 2)
