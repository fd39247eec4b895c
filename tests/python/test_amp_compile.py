"""Mixed precision, loss scaling and torch.compile, decided by what this torch can do."""
import contextlib
import warnings

import pytest
import torch

import anygpu.torch as agt
import anygpu.torch._amp as amp
import anygpu.torch._compile as compile_mod
from conftest import host


def _raw_autocast_dtype(device_type, dtype):
    """What torch's own autocast does to a matmul, asked without anygpu."""
    a, b = torch.randn(8, 8), torch.randn(8, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with torch.autocast(device_type=device_type, dtype=dtype):
                return (a @ b).dtype
        except RuntimeError:  # torch 1.13: "AutocastCPU only support Bfloat16"
            return None


def _raw_step_works(device_type, dtype):
    """Whether torch's own autocast runs a LayerNorm model's forward and backward."""
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.LayerNorm(8))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.autocast(device_type=device_type, dtype=dtype):
                out = model(torch.randn(4, 8))
            out.float().sum().backward()
    except RuntimeError:  # torch 1.13: "expected scalar type BFloat16 but found Float"
        return False
    return True


def test_cpu_autocast_dtype_is_one_a_training_step_can_run(isolated):
    works = _raw_step_works("cpu", torch.bfloat16)
    assert agt.amp_dtype("cpu", torch.bfloat16) is (torch.bfloat16 if works else None)
    a, b = torch.randn(16, 16), torch.randn(16, 16)
    model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.LayerNorm(16))
    with agt.autocast(device_type="cpu"):  # module-level: never a dtype that raises here
        inside = (a @ b).dtype
        model(a).float().sum().backward()
    assert inside is (torch.bfloat16 if works else torch.float32)
    assert (a @ b).dtype is torch.float32


def test_cpu_float16_follows_what_torch_supports(isolated):
    supported = _raw_autocast_dtype("cpu", torch.float16) is torch.float16
    if supported:
        assert agt.amp_dtype("cpu", torch.float16) is torch.float16
    else:
        with pytest.warns(agt.AnygpuWarning, match="not supported"):
            assert agt.amp_dtype("cpu", torch.float16) is None
        assert isinstance(agt.autocast(torch.float16, device_type="cpu"), contextlib.nullcontext)


def test_disabled_autocast_is_a_no_op(isolated):
    a = torch.randn(4, 4)
    with agt.autocast(enabled=False):
        assert (a @ a).dtype is torch.float32


def test_simulated_gpu_without_gpu_torch_gets_a_no_op_context(isolated):
    isolated.setenv("ANYGPU_ROOT", host("h100-8x"))
    isolated.setenv("ANYGPU_NO_LIBS", "1")
    assert agt.device().type == "cuda"
    if not torch.cuda.is_available():
        assert isinstance(agt.autocast(), contextlib.nullcontext)
        assert agt.grad_scaler() is None


def test_no_scaler_for_bfloat16(isolated):
    assert agt.grad_scaler(device_type="cpu") is None
    assert agt.Accelerator().scaler is None


def test_scaler_for_float16_uses_torch_amp_or_the_older_per_device_class(isolated, monkeypatch):
    isolated.setenv("ANYGPU_ROOT", host("h100-8x"))
    isolated.setenv("ANYGPU_NO_LIBS", "1")
    # Pretend this torch runs float16 autocast on the device (no GPU here to run it for real).
    monkeypatch.setattr(amp, "_accepted", lambda device_type, dtype: dtype is torch.float16)
    amp._chosen.clear()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "GradScaler is enabled, but CUDA is not available"
            scaler = agt.grad_scaler()
        if hasattr(torch.amp, "GradScaler"):
            assert isinstance(scaler, torch.amp.GradScaler)
        else:
            assert isinstance(scaler, torch.cuda.amp.GradScaler)
    finally:
        amp._chosen.clear()


def test_compile_takes_the_branch_this_torch_has(isolated):
    """One test, two branches: the Debian suite (torch 1.13) proves the eager fallback, the
    current-torch suite a real inductor compile on the CPU. Neither is skipped."""
    isolated.setenv("ANYGPU_VENDOR", "cpu")
    isolated.setenv("ANYGPU_TORCH_DEVICE", "cpu")
    if hasattr(torch, "compile"):
        _compiles_for_real()
    else:
        _falls_back_to_eager()


def _compiles_for_real():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 2))
    x = torch.randn(4, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", agt.AnygpuWarning)  # the compiled branch warns nothing
        compiled = agt.compile(model)
    assert compiled is not model and type(compiled).__name__ == "OptimizedModule"
    assert torch.allclose(compiled(x), model(x), rtol=1e-5, atol=1e-6)


def _falls_back_to_eager():
    model = torch.nn.Linear(4, 2)
    with pytest.warns(agt.AnygpuWarning, match="has no torch.compile"):
        assert agt.compile(model) is model
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per process
        assert agt.compile(model, mode="max-autotune") is model


def test_compile_passes_the_real_signature_through(isolated, monkeypatch):
    calls = []

    def fake_compile(model, **kwargs):
        calls.append(kwargs)
        return ("compiled", model)

    monkeypatch.setattr(torch, "compile", fake_compile, raising=False)
    model = torch.nn.Linear(4, 2)
    out = agt.compile(model, mode="reduce-overhead", fullgraph=True, dynamic=False)
    assert out == ("compiled", model)
    assert calls == [{"mode": "reduce-overhead", "backend": "inductor", "fullgraph": True,
                      "dynamic": False}]
    decorator = agt.compile(mode="default")
    assert decorator(model) == ("compiled", model)


def test_compile_without_a_cpu_compiler_stays_eager(isolated, monkeypatch):
    isolated.setenv("ANYGPU_VENDOR", "cpu")
    isolated.setenv("ANYGPU_TORCH_DEVICE", "cpu")
    monkeypatch.setattr(torch, "compile", lambda m, **k: pytest.fail("must not compile"),
                        raising=False)
    monkeypatch.setenv("CXX", "no-such-compiler")
    monkeypatch.setattr(compile_mod.shutil, "which", lambda name: None)
    model = torch.nn.Linear(4, 2)
    with pytest.warns(agt.AnygpuWarning, match="needs a C\\+\\+ compiler"):
        assert agt.compile(model) is model
    # Another backend checks its own prerequisites: anygpu does not second-guess it.
    monkeypatch.setattr(torch, "compile", lambda m, **k: "eager-backend", raising=False)
    assert agt.compile(model, backend="eager") == "eager-backend"
