"""Run by test_vendor_paths.py with fake vendor plugins first on sys.path: walks anygpu.torch's
path for one vendor and prints the recorded calls (fake_events) as JSON."""
import json
import sys

import fake_events
import torch
import torch.distributed as dist

import anygpu.torch as agt
import anygpu.torch._amp as amp
import anygpu.torch._distributed as distributed
from anygpu.torch._vendor import compile_backend

events = fake_events.EVENTS


class Store:
    """The TCP store (tested for real by the CPU runs) — the one stand-in besides the plugin."""

    def set_timeout(self, timeout):
        pass


def main(vendor: str) -> None:
    # What the vendor's collectives would do cannot run on a CPU: record the call instead.
    dist.init_process_group = lambda **kw: events.append(
        f"init_process_group(backend={kw['backend']!r})")
    distributed._rendezvous = lambda ranks, timeout: Store()
    torch.compile = lambda model, **kw: events.append(
        f"torch.compile(backend={kw['backend']!r})") or model
    out = {}
    if vendor == "gaudi":
        out["device"] = str(agt.device())
        agt.init_distributed()
        agt.compile(torch.nn.Linear(1, 1))
    else:
        device_type = {"ascend": "npu", "mthreads": "musa"}[vendor]
        amp._chosen[(device_type, torch.float16)] = torch.float16  # fp16 autocast on the device
        agt.grad_scaler(torch.float16, device_type=device_type)
        out["backend"] = compile_backend(device_type, "inductor")
        dist_backend = {"npu": "hccl", "musa": "mccl"}[device_type]
        out["unavailable"] = distributed.unavailable(dist_backend, device_type)
    out["events"] = events
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
