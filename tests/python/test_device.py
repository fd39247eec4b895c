"""device() and dist_backend() on simulated hosts, on this host, and from an exported selection."""
import warnings

import pytest
import torch

import anygpu
import anygpu.torch as agt
from conftest import host

SIMULATED = [
    ("h100-8x", "cuda", "nccl"),
    ("mi300x-8x", "cuda", "nccl"),       # ROCm torch: device cuda, RCCL behind nccl
    ("hygon-dcu", "cuda", "nccl"),
    ("ascend-910b-8x", "npu", "hccl"),
    ("cloud-vm-none", "cpu", "gloo"),
]


@pytest.mark.parametrize("name,device_type,backend", SIMULATED)
def test_simulated_hosts(isolated, name, device_type, backend):
    isolated.setenv("ANYGPU_ROOT", host(name))
    isolated.setenv("ANYGPU_NO_LIBS", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a simulated host must not fall back to CPU
        dev = agt.device()
        assert dev.type == device_type
        assert agt.dist_backend() == backend
    if device_type != "cpu":
        assert dev.index == 0


def test_simulated_device_follows_local_rank(isolated):
    isolated.setenv("ANYGPU_ROOT", host("h100-8x"))
    isolated.setenv("ANYGPU_NO_LIBS", "1")
    isolated.setenv("LOCAL_RANK", "3")
    assert agt.device() == torch.device("cuda", 3)
    isolated.setenv("LOCAL_RANK", "5")
    assert agt.device() == torch.device("cuda", 5)


def test_ascend_without_its_plugin_is_a_simulated_device(isolated):
    # This torch has no "npu" device type (torch_npu renames privateuse1 to it).
    isolated.setenv("ANYGPU_ROOT", host("ascend-910b-8x"))
    isolated.setenv("ANYGPU_NO_LIBS", "1")
    dev = agt.device()
    assert isinstance(dev, agt.SimulatedDevice) and str(dev) == "npu:0"


def test_intel_xpu_without_collectives_warns_and_uses_gloo(isolated):
    isolated.setenv("ANYGPU_ROOT", host("intel-max-arc"))
    isolated.setenv("ANYGPU_NO_LIBS", "1")
    assert agt.device().type == "xpu"
    has_xccl = getattr(torch.distributed, "is_xccl_available", lambda: False)()
    if has_xccl:
        assert agt.dist_backend() == "xccl"
    else:
        with pytest.warns(agt.AnygpuWarning, match="xccl needs torch >= 2.7"):
            assert agt.dist_backend() == "gloo"


def test_this_host(isolated):
    selected = anygpu.select()["torch_device"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dev = agt.device()
    if selected == "cpu":  # the build machine: no accelerator, so no warning either
        assert dev == torch.device("cpu") and not caught
        assert agt.dist_backend() == "gloo"
    elif caught:  # accelerators this torch cannot use
        assert dev == torch.device("cpu") and "anygpu wheel" in str(caught[0].message)
    else:
        assert dev == torch.device(selected, 0)


def test_accelerators_torch_cannot_use_fall_back_to_cpu_once_with_the_fix(isolated):
    # What `anygpu run` exports on a real NVIDIA host; Debian's torch here is a CPU build.
    isolated.setenv("ANYGPU_VENDOR", "nvidia")
    isolated.setenv("ANYGPU_TORCH_DEVICE", "cuda")
    isolated.setenv("ANYGPU_DEVICES", "0000:18:00.0")
    assert not torch.cuda.is_available()
    with pytest.warns(agt.AnygpuWarning) as caught:
        assert agt.device() == torch.device("cpu")
        isolated.setenv("LOCAL_RANK", "0")
        assert agt.device() == torch.device("cpu")
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "nvidia" in message and "0000:18:00.0" in message and "anygpu wheel" in message
    assert agt.dist_backend() == "gloo"


def test_vendor_plugin_missing_falls_back_naming_the_package(isolated):
    isolated.setenv("ANYGPU_VENDOR", "mthreads")
    isolated.setenv("ANYGPU_TORCH_DEVICE", "musa")
    with pytest.warns(agt.AnygpuWarning, match="torch_musa is not installed"):
        assert agt.device() == torch.device("cpu")


@pytest.mark.parametrize("var,value", [("LOCAL_RANK", "abc"), ("LOCAL_RANK", "-1"),
                                       ("ANYGPU_TORCH_DEVICE", "rocm")])
def test_malformed_environment_is_named(isolated, var, value):
    isolated.setenv("ANYGPU_ROOT", host("h100-8x"))
    isolated.setenv("ANYGPU_NO_LIBS", "1")
    if var == "ANYGPU_TORCH_DEVICE":
        isolated.setenv("ANYGPU_VENDOR", "amd")
    isolated.setenv(var, value)
    with pytest.raises(anygpu.InvalidEnvironmentError, match=f'{var}="{value}"'):
        agt.device()
