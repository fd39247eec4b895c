"""Data-loader workers: what the launcher derived, else this process's share of its CPUs."""
import os

from .._environment import integer


def num_workers() -> int:
    """ANYGPU_NUM_WORKERS (set by `anygpu run`/`select` from the CPUs local to the chosen
    devices), else the CPUs this process may run on (its affinity, which `anygpu run` narrows to
    the devices' NUMA node) divided by the processes on this node; at least 1."""
    exported = integer("ANYGPU_NUM_WORKERS")
    if exported is not None:
        return exported
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    per_node = integer("LOCAL_WORLD_SIZE", 1)
    return max(1, cpus // per_node)
