"""Fake TorchAir: get_npu_backend() returns the graph backend torch.compile is given."""
import fake_events


def get_npu_backend(compiler_config=None):
    fake_events.EVENTS.append(f"torchair.get_npu_backend({type(compiler_config).__name__})")
    return "torchair-npu-backend"
