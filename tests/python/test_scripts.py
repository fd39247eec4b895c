"""The scripts that cannot run here in full (no GPU) are at least valid, lint-clean, and fail
with a clear message and exit code 2 where their prerequisite is missing."""
import os
import py_compile
import shutil
import subprocess

import pytest

from conftest import REPO, clean_env

SCRIPTS = ["bench/gpu/check.sh", "bench/python.sh", "scripts/demo.sh"]


@pytest.mark.parametrize("script", SCRIPTS)
def test_shell_syntax_and_shellcheck(script):
    path = os.path.join(REPO, script)
    assert os.access(path, os.X_OK), f"{script} is not executable"
    subprocess.run(["bash", "-n", path], check=True)
    shellcheck = shutil.which("shellcheck")
    assert shellcheck, "shellcheck is required for this test (apt-get install shellcheck)"
    proc = subprocess.run([shellcheck, "-x", path], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


def test_gpu_check_without_a_gpu_says_what_is_missing(tmp_path):
    if shutil.which("nvidia-smi"):
        pytest.fail("this host has nvidia-smi: run bench/gpu/check.sh itself instead")
    proc = subprocess.run([os.path.join(REPO, "bench/gpu/check.sh")], capture_output=True,
                          text=True, env=clean_env(OUT=tmp_path), timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "missing prerequisite: nvidia-smi" in proc.stdout


@pytest.mark.parametrize("script", ["bench/gpu/train_plain.py", "bench/python_step.py"])
def test_benchmark_scripts_compile(tmp_path, script):
    py_compile.compile(os.path.join(REPO, script), doraise=True,
                       cfile=str(tmp_path / "script.pyc"))


def test_gpu_check_rejects_unknown_arguments(tmp_path):
    proc = subprocess.run([os.path.join(REPO, "bench/gpu/check.sh"), "--gpu"],
                          capture_output=True, text=True, env=clean_env(OUT=tmp_path), timeout=60)
    assert proc.returncode == 2 and "usage: bench/gpu/check.sh [--cpu]" in proc.stdout
