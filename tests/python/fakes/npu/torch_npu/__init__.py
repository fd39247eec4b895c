"""Fake torch_npu: torch.npu with its own GradScaler, and the hccl backend."""
import torch
import torch.distributed as dist

import fake_device
import fake_events

fake_events.EVENTS.append("import torch_npu")


class GradScaler(fake_device.GradScaler):
    pass


fake_device.install(torch, "npu", GradScaler)
dist.Backend.register_backend("hccl", lambda *args: None)
