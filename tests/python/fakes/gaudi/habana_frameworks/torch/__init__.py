"""Fake habana_frameworks.torch: registers the hpu device module."""
import torch

import fake_device
import fake_events

fake_events.EVENTS.append("import habana_frameworks.torch")
fake_device.install(torch, "hpu")
