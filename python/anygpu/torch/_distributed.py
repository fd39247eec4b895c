"""Process-group set-up from whichever launcher started this process.

Ranks come from torchrun / `anygpu run` (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
MASTER_PORT) or, for tasks started by `srun` directly, from Slurm (SLURM_PROCID, ...), with the
master derived the same way `anygpu run` derives it inside an allocation.
"""
import importlib.util
import os
import time
from dataclasses import dataclass
from datetime import timedelta

import torch

from .._environment import TORCH_DEVICES, integer, value
from .._errors import InvalidEnvironmentError
from ._device import device, set_device
from ._vendor import register_backend
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


def first_host(nodelist: str, name: str = "SLURM_JOB_NODELIST") -> str:
    """The first host of a Slurm hostlist ("gpu[01-04,07],cpu1" -> "gpu01"), by the hostlist
    parser `anygpu run` uses (a malformed list is refused with its message)."""
    return value(name, {name: nodelist})["first"]


def ranks(environ=None) -> Ranks:
    env = os.environ if environ is None else environ
    if "RANK" in env or "WORLD_SIZE" in env:
        world = integer("WORLD_SIZE", 1, env)
        rank = integer("RANK", 0, env)
        local = integer("LOCAL_RANK", 0, env)
        local_world = integer("LOCAL_WORLD_SIZE", world, env)
        if rank >= world or local >= local_world:
            raise InvalidEnvironmentError(
                f"RANK={rank} LOCAL_RANK={local} do not fit WORLD_SIZE={world} "
                f"LOCAL_WORLD_SIZE={local_world}")
        port = integer("MASTER_PORT", 0, env)
        addr = value("MASTER_ADDR", env)
        if world > 1 and (not addr or not port):
            raise InvalidEnvironmentError(
                f"WORLD_SIZE={world} but MASTER_ADDR/MASTER_PORT are not set: start the "
                "processes with `anygpu run --nproc-per-node N` or torchrun")
        return Ranks(rank, world, local, local_world, addr["value"] if addr else "", port, "env")
    if "SLURM_JOB_ID" in env and "SLURM_STEP_NUM_TASKS" in env:  # a task srun started
        world = integer("SLURM_STEP_NUM_TASKS", 1, env)
        rank = integer("SLURM_PROCID", 0, env)
        local = integer("SLURM_LOCALID", 0, env)
        nodes = integer("SLURM_STEP_NUM_NODES", None, env) or integer("SLURM_NNODES", 1, env)
        job = integer("SLURM_JOB_ID", 0, env)
        port = integer("MASTER_PORT", None, env) or (
            SLURM_MASTER_PORT_BASE + job % SLURM_MASTER_PORT_SPAN)
        # Both lists are judged as `anygpu run` judges them; the step's names the master.
        step, job_nodes = value("SLURM_STEP_NODELIST", env), value("SLURM_JOB_NODELIST", env)
        addr = value("MASTER_ADDR", env)
        addr = addr["value"] if addr else (step or job_nodes or {"first": "127.0.0.1"})["first"]
        if rank >= world:
            raise InvalidEnvironmentError(
                f"SLURM_PROCID={rank} does not fit SLURM_STEP_NUM_TASKS={world}")
        return Ranks(rank, world, local, max(1, world // nodes), addr, port, "slurm")
    if "SLURM_JOB_ID" in env:
        _refuse_lone_task(env)
    return Ranks()


def _refuse_lone_task(env) -> None:
    # srun exports SLURM_STEP_* to the tasks of a step (Slurm's env_array_for_step); a batch
    # script or salloc shell has only the job's SLURM_NTASKS. Waiting there for the other
    # tasks would hang until the rendezvous times out, so say how to start them instead.
    tasks = integer("SLURM_NTASKS", None, env) or integer("SLURM_NPROCS", 1, env)
    if tasks > 1:
        job = env.get("SLURM_JOB_ID")
        raise InvalidEnvironmentError(
            f"this process runs inside Slurm job {job} of {tasks} tasks (SLURM_NTASKS={tasks}) "
            "but was not started as one of its tasks (no SLURM_STEP_NUM_TASKS): start the "
            "tasks with `srun python3 ...` or `anygpu run ...`, or unset SLURM_NTASKS to run "
            "this one process alone")


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


# Which device types a backend's collectives take tensors from; gloo, mpi and ucc take any.
_BACKEND_DEVICES = {"nccl": ("cuda",), "xccl": ("xpu",), "ccl": ("xpu", "cpu"),
                    "hccl": ("npu", "hpu"), "mccl": ("musa",), "cncl": ("mlu",), "eccl": ("gcu",)}
_BUILT_IN = {"gloo": "is_gloo_available", "nccl": "is_nccl_available", "mpi": "is_mpi_available",
             "ucc": "is_ucc_available", "xccl": "is_xccl_available"}
DEFAULT_RENDEZVOUS_TIMEOUT_S = 600


def unavailable(backend: str, device_type: str) -> str:
    """Why torch.distributed cannot run `backend` for `device_type` here ("" when it can)."""
    dist = torch.distributed
    wanted = _BACKEND_DEVICES.get(backend)
    if wanted is not None and device_type not in wanted:
        return (f"{backend} runs collectives on {'/'.join(wanted)} tensors and this process's "
                f"device is {device_type!r}")
    try:
        register_backend(backend, device_type)
    except ImportError as e:
        return f"the module that registers {backend} is not installed ({e})"
    check = _BUILT_IN.get(backend)
    if check is not None:
        fn = getattr(dist, check, None)
        if fn is None or not fn():
            return f"torch {torch.__version__} was built without {backend}"
        return ""
    if not hasattr(dist.Backend, backend.upper()):
        return f"{backend} is not registered with torch.distributed (torch {torch.__version__})"
    return ""


def resolve_backend(explicit=None) -> str:
    """backend= if given, else ANYGPU_DIST_BACKEND, else the device's own; an explicit choice
    that cannot run is an error naming why, never silently replaced."""
    device_type = device().type
    exported = value("ANYGPU_DIST_BACKEND")
    exported = exported["value"] if exported else None
    if explicit is None and exported is None:
        return dist_backend()
    name, origin = (explicit, "backend") if explicit is not None else (exported, "ANYGPU_DIST_BACKEND")
    selected = value("ANYGPU_TORCH_DEVICE")
    selected = selected["value"] if selected else None
    if explicit is None and selected and selected != device_type:
        # The selection was for devices this torch cannot use (device() warned and fell back).
        fallback = dist_backend()
        warn_once("dist-backend-fallback",
                  f"anygpu: ANYGPU_DIST_BACKEND={name} was chosen for {selected!r} devices, but "
                  f"this process runs on {device_type!r}; using {fallback}")
        return fallback
    reason = unavailable(name, device_type)
    if reason:
        raise RuntimeError(f"anygpu: {origin}={name!r} cannot be used: {reason}")
    return name


def rendezvous_timeout() -> timedelta:
    seconds = integer("ANYGPU_RENDEZVOUS_TIMEOUT", DEFAULT_RENDEZVOUS_TIMEOUT_S)
    return timedelta(seconds=seconds)


_joins = 0
_group_store = None
LEAVE_WAIT_S = 30


def leave() -> None:
    """destroy_process_group, rank 0 leaving last. Where rank 0 serves the store, a peer still
    tearing its group down would find the store gone, and torch 2.x then aborts that process
    ("terminate called without an active exception"). Each rank counts itself out after its
    teardown; rank 0 waits (at most LEAVE_WAIT_S, a dead peer does not hold it) for all."""
    global _group_store
    dist = torch.distributed
    rank, world = dist.get_rank(), dist.get_world_size()
    store, _group_store = _group_store, None
    dist.destroy_process_group()
    if store is None:
        return
    key = f"anygpu/left/{_joins}"
    try:
        left = store.add(key, 1)
        deadline = time.monotonic() + LEAVE_WAIT_S
        while rank == 0 and left < world and time.monotonic() < deadline:
            time.sleep(0.02)
            left = store.add(key, 0)
    except RuntimeError:
        pass  # the store's host already left: nothing is waiting on this rank


def _store(r: Ranks, timeout: timedelta):
    """The TCP store of this launch: torchrun's agent store when it hosts one (as
    torch/distributed/rendezvous.py's _create_c10d_store does), else served by rank 0."""
    dist = torch.distributed
    agent_store = value("TORCHELASTIC_USE_AGENT_STORE")
    if agent_store and agent_store["value"] == "True":
        attempt = integer("TORCHELASTIC_RESTART_COUNT", 0)
        store = dist.TCPStore(r.master_addr, r.master_port, r.world_size, False, timeout)
        return dist.PrefixStore(f"/worker/attempt_{attempt}", store)
    # The server does not wait for the others itself (torch 2.x would time out in the
    # constructor with its own wording): _rendezvous counts who came, under every torch.
    return dist.TCPStore(r.master_addr, r.master_port, r.world_size, r.rank == 0, timeout,
                         wait_for_workers=False)


def _rendezvous(r: Ranks, timeout: timedelta):
    """Every process of the launch checks in at the store within `timeout`, or this fails
    naming how many came (torch would otherwise wait its 30-minute collective timeout)."""
    global _joins
    where = f"{r.master_addr}:{r.master_port}"
    deadline = time.monotonic() + timeout.total_seconds()
    try:
        store = _store(r, timeout)
        _joins += 1
        key = "anygpu/rendezvous"
        joined = store.add(key, 1)
        while joined < r.world_size * _joins:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{joined - r.world_size * (_joins - 1)} of {r.world_size} "
                                   "processes joined")
            time.sleep(0.05)
            joined = store.add(key, 0)
    except (RuntimeError, TimeoutError) as e:
        raise TimeoutError(
            f"anygpu: rank {r.rank} could not meet the other processes at {where} within "
            f"{timeout.total_seconds():.0f} s (ANYGPU_RENDEZVOUS_TIMEOUT): {e}. Start all "
            f"{r.world_size} processes (`anygpu run --nproc-per-node N`, torchrun or srun)"
        ) from None
    return store


def init_distributed(backend=None, timeout=None) -> bool:
    """Joins the process group of this launch and binds the device of LOCAL_RANK.

    The processes meet within ANYGPU_RENDEZVOUS_TIMEOUT seconds (default 600); `timeout` is
    torch's collective timeout (default 30 minutes). Returns False, creating nothing, when
    this is the only process.
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
    name = resolve_backend(backend)  # before the rendezvous: a refusal must not wait
    # env:// readers (and user code) expect these; a Slurm-derived master must be visible too.
    os.environ.setdefault("MASTER_ADDR", r.master_addr)
    os.environ.setdefault("MASTER_PORT", str(r.master_port))
    ops = timeout if timeout is not None else dist.default_pg_timeout
    global _group_store
    store = _group_store = _rendezvous(r, rendezvous_timeout())
    store.set_timeout(ops)
    dist.init_process_group(backend=name, store=store, rank=r.rank, world_size=r.world_size,
                            timeout=ops)
    return True
