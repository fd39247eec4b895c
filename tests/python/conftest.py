"""Shared set-up: the libanygpu.so and CLI of the build under test, and clean subprocesses.

ctest sets ANYGPU_LIBRARY, ANYGPU_BINARY, PYTHONPATH and ANYGPU_TEST_TORCH (system: Debian's
torch 1.13; current: the venv of tools/torch_venv.sh) in tests/areas/python.cmake. By hand:
    ANYGPU_LIBRARY=build/libanygpu.so ANYGPU_BINARY=build/anygpu PYTHONPATH=python \
      ANYGPU_TEST_TORCH=system /usr/bin/python3 -m pytest -q tests/python
    ANYGPU_LIBRARY=... ANYGPU_TEST_TORCH=current $(tools/torch_venv.sh --path) -m pytest -q ...
"""
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOSTS = os.path.join(REPO, "tests", "hosts")
PYTHON = sys.executable  # the interpreter under test: Debian's (torch 1.13) or the current-torch venv

sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
from ports import rendezvous_port  # noqa: E402,F401  (re-exported for the launch tests)

for _var in ("ANYGPU_LIBRARY", "ANYGPU_BINARY"):
    if not os.path.exists(os.environ.get(_var, "")):
        raise pytest.UsageError(f"{_var} must name the built file (got {os.environ.get(_var)!r}); "
                                "run through ctest or see tests/python/conftest.py")
LIBRARY = os.environ["ANYGPU_LIBRARY"]
BINARY = os.environ["ANYGPU_BINARY"]

# Variables a launcher or an outer shell may have set; tests start from none of them.
_LAUNCH_VARS = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                "MASTER_PORT", "GROUP_RANK", "ROLE_RANK", "TORCHELASTIC_RUN_ID")


def run_launch(argv, timeout, **kwargs):
    """subprocess.run for a launcher (anygpu run, torchrun) in a session of its own: on a
    timeout the whole session is killed, so no rank outlives the test to load the machine."""
    proc = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        raise AssertionError(f"{argv[:3]} timed out after {timeout} s:\n{out}{err}") from None
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def clean_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("ANYGPU_") or k.startswith("SLURM_") or k in _LAUNCH_VARS)}
    env["ANYGPU_LIBRARY"] = LIBRARY
    env["ANYGPU_BINARY"] = BINARY
    env["PYTHONPATH"] = os.path.join(REPO, "python")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = str(v)
    return env


def run_python(code: str, timeout=120, check=True, **env):
    """Runs `code` in a fresh /usr/bin/python3 with clean_env(**env)."""
    proc = subprocess.run([PYTHON, "-c", code], env=clean_env(**env), capture_output=True,
                          text=True, timeout=timeout, cwd=REPO)
    if check and proc.returncode != 0:
        raise AssertionError(f"python exited {proc.returncode}\nstdout:\n{proc.stdout}\n"
                             f"stderr:\n{proc.stderr}")
    return proc


def host(name: str) -> str:
    path = os.path.join(HOSTS, name)
    assert os.path.isdir(path), f"fixture host {name} missing at {path}"
    return path


@pytest.fixture
def isolated(monkeypatch):
    """This process's environment without launcher/selection variables, and anygpu.torch's
    per-environment caches emptied (they are keyed by the environment, but warnings are once)."""
    for k in list(os.environ):
        if k.startswith("ANYGPU_") and k not in ("ANYGPU_LIBRARY", "ANYGPU_BINARY") or \
                k.startswith("SLURM_") or k in _LAUNCH_VARS:
            monkeypatch.delenv(k)
    import anygpu.torch._device as d
    import anygpu.torch._warn as w
    d._devices.clear()
    d._selections.clear()
    w._given.clear()
    yield monkeypatch
    d._devices.clear()
    d._selections.clear()
    w._given.clear()


sys.path.insert(0, os.path.join(REPO, "python"))
