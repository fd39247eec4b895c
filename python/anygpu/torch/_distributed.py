"""Process-group set-up from whichever launcher started this process.

Ranks come from torchrun / `anygpu run` (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
MASTER_PORT) or, for tasks started by `srun` directly, from Slurm (SLURM_PROCID, ...), with the
master derived the same way `anygpu run` derives it inside an allocation.
"""
import importlib.util
import os
import re
from dataclasses import dataclass

import torch

from .._environment import TORCH_DEVICES, integer
from .._errors import InvalidEnvironmentError
from ._device import device, set_device
from ._warn import warn_once

# Same rule as the native launcher: every task computes the port from the job id alone.
SLURM_MASTER_PORT_BASE = 20000
SLURM_MASTER_PORT_SPAN = 10000


@dataclass(frozen=True)
class Ranks:
    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    local_world_size: int = 1
    master_addr: str = ""
    master_port: int = 0
    source: str = "single process"


def first_host(nodelist: str) -> str:
    """The first host of a Slurm hostlist: "gpu[01-04,07],cpu1" -> "gpu01"."""
    m = re.match(r"^([^,\[\]]*)(?:\[([^\]]*)\])?", nodelist.strip())
    if not m or (not m.group(1) and not m.group(2)):
        raise InvalidEnvironmentError(f"SLURM_JOB_NODELIST={nodelist!r}: not a hostlist")
    prefix, ranges = m.group(1), m.group(2)
    if ranges is None:
        return prefix
    first = ranges.split(",")[0].split("-")[0]
    if not first.isdigit():
        raise InvalidEnvironmentError(f"SLURM_JOB_NODELIST={nodelist!r}: not a hostlist")
    return prefix + first


def ranks(environ=None) -> Ranks:
    env = os.environ if environ is None else environ
    if "RANK" in env or "WORLD_SIZE" in env:
        world = integer("WORLD_SIZE", 1, 1, env)
        rank = integer("RANK", 0, 0, env)
        local = integer("LOCAL_RANK", 0, 0, env)
        local_world = integer("LOCAL_WORLD_SIZE", 1, world, env)
        if rank >= world or local >= local_world:
            raise InvalidEnvironmentError(
                f"RANK={rank} LOCAL_RANK={local} do not fit WORLD_SIZE={world} "
                f"LOCAL_WORLD_SIZE={local_world}")
        port = integer("MASTER_PORT", 1, 0, env)
        if world > 1 and (not env.get("MASTER_ADDR") or not port):
            raise InvalidEnvironmentError(
                f"WORLD_SIZE={world} but MASTER_ADDR/MASTER_PORT are not set: start the "
                "processes with `anygpu run --nproc-per-node N` or torchrun")
        return Ranks(rank, world, local, local_world, env.get("MASTER_ADDR", ""), port, "env")
    if "SLURM_PROCID" in env and "SLURM_JOB_ID" in env:  # a task started by srun
        world = integer("SLURM_STEP_NUM_TASKS", 1, None, env) or integer("SLURM_NTASKS", 1, 1, env)
        rank = integer("SLURM_PROCID", 0, 0, env)
        local = integer("SLURM_LOCALID", 0, 0, env)
        nodes = integer("SLURM_STEP_NUM_NODES", 1, None, env) or integer("SLURM_NNODES", 1, 1, env)
        job = integer("SLURM_JOB_ID", 0, 0, env)
        port = integer("MASTER_PORT", 1, None, env) or (
            SLURM_MASTER_PORT_BASE + job % SLURM_MASTER_PORT_SPAN)
        nodelist = env.get("SLURM_STEP_NODELIST") or env.get("SLURM_JOB_NODELIST", "")
        addr = env.get("MASTER_ADDR") or (first_host(nodelist) if nodelist else "127.0.0.1")
        return Ranks(rank, world, local, max(1, world // nodes), addr, port, "slurm")
    return Ranks()


def dist_backend() -> str:
    """The torch.distributed backend for device(): nccl (CUDA and ROCm/RCCL), xccl or ccl
    (XPU), hccl, mccl, cncl, eccl, gloo (CPU)."""
    device_type = device().type
    if device_type == "xpu":
        dist = torch.distributed
        if getattr(dist, "is_xccl_available", None) and dist.is_xccl_available():
            return "xccl"  # built into torch >= 2.7
        if importlib.util.find_spec("oneccl_bindings_for_pytorch") is not None:
            importlib.import_module("oneccl_bindings_for_pytorch")  # registers "ccl"
            return "ccl"
        warn_once("xpu-collectives", f"anygpu: torch {torch.__version__} has no XPU collectives "
                  "(xccl needs torch >= 2.7; or install oneccl_bindings_for_pytorch); using gloo")
        return "gloo"
    return TORCH_DEVICES[device_type][1]


def init_distributed(backend=None, timeout=None) -> bool:
    """Joins the process group of this launch (env://) and binds the device of LOCAL_RANK.

    Returns False, creating nothing, when this is the only process.
    """
    r = ranks()
    set_device(device())
    if r.world_size <= 1:
        return False
    dist = torch.distributed
    if not dist.is_available():
        raise RuntimeError(f"torch {torch.__version__} was built without torch.distributed, "
                           f"but WORLD_SIZE={r.world_size}")
    if dist.is_initialized():
        return True
    # env:// reads these; a Slurm-derived master must be visible to it too.
    os.environ.setdefault("MASTER_ADDR", r.master_addr)
    os.environ.setdefault("MASTER_PORT", str(r.master_port))
    kwargs = {"timeout": timeout} if timeout is not None else {}
    dist.init_process_group(backend=backend or dist_backend(), init_method="env://",
                            rank=r.rank, world_size=r.world_size, **kwargs)
    return True
