"""ANYGPU_ROOT, ANYGPU_NO_LIBS and ANYGPU_LIB_TIMEOUT_MS are refused by Python exactly as by
the CLI: the native library validates them (one validation, through the C ABI) and Python
raises its anygpu.error/v1 document as BadInputError (exit code 2)."""
import subprocess

import pytest

import anygpu
import anygpu.torch as agt
from conftest import BINARY, clean_env

BAD = [("ANYGPU_ROOT", "/nonexistent"), ("ANYGPU_NO_LIBS", "maybe"),
       ("ANYGPU_LIB_TIMEOUT_MS", "0")]


@pytest.mark.parametrize("var,value", BAD)
def test_the_cli_refuses_it(var, value):
    proc = subprocess.run([BINARY, "detect", "--json"], env=clean_env(**{var: value}),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr


@pytest.mark.parametrize("var,value", BAD)
def test_python_refuses_it_through_the_c_abi(isolated, var, value):
    isolated.setenv(var, value)
    for call in (anygpu.detect, anygpu.select, agt.device):
        with pytest.raises(anygpu.BadInputError) as e:
            call()
        assert e.value.exit_code == 2 and value in str(e.value), str(e.value)


def test_an_exported_selection_does_not_skip_the_check(isolated):
    isolated.setenv("ANYGPU_VENDOR", "cpu")
    isolated.setenv("ANYGPU_TORCH_DEVICE", "cpu")
    assert anygpu.select()["source"] == "environment"
    isolated.setenv("ANYGPU_ROOT", "/nonexistent")
    with pytest.raises(anygpu.BadInputError, match="/nonexistent"):
        anygpu.select()
