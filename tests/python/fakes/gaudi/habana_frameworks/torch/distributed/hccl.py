"""Fake habana_frameworks.torch.distributed.hccl: importing it registers the hccl backend."""
import torch.distributed as dist

import fake_events

fake_events.EVENTS.append("import habana_frameworks.torch.distributed.hccl")
dist.Backend.register_backend("hccl", lambda *args: None)
