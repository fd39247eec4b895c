"""accelerate against anygpu.torch.Accelerator: run only by ctest's `python_accelerate_parity`,
under the current-torch venv (tools/torch_venv.sh), which has accelerate. The helpers are
tests/python/conftest.py's (loaded under another name: both files are called conftest.py).

By hand:
    ANYGPU_LIBRARY=build/libanygpu.so ANYGPU_BINARY=build/anygpu PYTHONPATH=python \\
      ANYGPU_TEST_TORCH=current $(tools/torch_venv.sh --path) -m pytest -q tests/python_accelerate
"""
import importlib.util
import os
import sys

import pytest

_SHARED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python",
                       "conftest.py")
_spec = importlib.util.spec_from_file_location("anygpu_python_conftest", _SHARED)
shared = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = shared
_spec.loader.exec_module(shared)

BINARY, PYTHON, REPO = shared.BINARY, shared.PYTHON, shared.REPO
clean_env, rendezvous_port, run_launch = shared.clean_env, shared.rendezvous_port, shared.run_launch
isolated = shared.isolated  # the fixture

# This suite compares against accelerate: where it is missing, that is a failure, not a skip.
if os.environ.get("ANYGPU_TEST_TORCH") != "current":
    raise pytest.UsageError("tests/python_accelerate runs under the current-torch venv only "
                            "(ANYGPU_TEST_TORCH=current; got "
                            f"{os.environ.get('ANYGPU_TEST_TORCH')!r})")
try:
    import accelerate  # noqa: F401  (its absence is a failure)
except ImportError as e:
    raise pytest.UsageError(f"accelerate is not importable from {sys.executable} ({e}): "
                            "run through ctest (python_accelerate_parity)") from None

ACCELERATE = os.path.join(os.path.dirname(PYTHON), "accelerate")
HERE = os.path.dirname(os.path.abspath(__file__))


def launch(tmp_path, framework: str, world: int, script: str, args: list, timeout=240):
    """Runs `script args` in `world` fresh processes on the CPU: under accelerate's own
    launcher, or under `anygpu run`. accelerate's `--cpu` always starts one process (several
    CPU processes are left to mpirun), so two go through its torchrun path (--multi_gpu) with
    ACCELERATE_USE_CPU=1, which makes Accelerator() choose MULTI_CPU and gloo."""
    env = clean_env(OMP_NUM_THREADS=1)
    path = os.path.join(HERE, script)
    if framework == "accelerate":
        argv = [ACCELERATE, "launch", "--num_processes", str(world), "--num_machines", "1",
                "--mixed_precision", "no", "--dynamo_backend", "no"]
        argv += ["--cpu"] if world == 1 else ["--multi_gpu", "--main_process_port",
                                              str(rendezvous_port())]
        env["ACCELERATE_USE_CPU"] = "1"
        argv += [path]
    else:
        config = tmp_path / "anygpu-cpu.yaml"
        config.write_text("backend: cpu\n")
        argv = [BINARY, "run", "--config", str(config)]
        if world > 1:
            argv += ["--nproc-per-node", str(world), "--master-port", str(rendezvous_port())]
        argv += ["--", PYTHON, path]
    proc = run_launch(argv + [str(a) for a in args], env=env, timeout=timeout, cwd=tmp_path)
    assert proc.returncode == 0, f"{argv}\n{proc.stdout[-4000:]}{proc.stderr[-4000:]}"
    return proc
