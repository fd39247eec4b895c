"""Fake torch_musa: torch.musa with its own GradScaler, and the mccl backend."""
import torch
import torch.distributed as dist

import fake_device
import fake_events

fake_events.EVENTS.append("import torch_musa")


class GradScaler(fake_device.GradScaler):
    pass


fake_device.install(torch, "musa", GradScaler)
dist.Backend.register_backend("mccl", lambda *args: None)
