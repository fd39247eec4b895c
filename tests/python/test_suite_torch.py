"""Each run of the suites proves the torch it was started for (tests/areas/python.cmake sets
ANYGPU_TEST_TORCH): Debian's 1.13 once, the pinned PyPI release once; a venv that silently fell
back to the system torch would run 1.13 twice and prove nothing new."""
import os
import re

import torch

from conftest import REPO

REQUIREMENTS = os.path.join(REPO, "tests", "python", "requirements-current.txt")


def _pinned_torch() -> str:
    with open(REQUIREMENTS, encoding="utf-8") as f:
        for line in f:
            m = re.fullmatch(r"torch==(\S+)", line.strip())
            if m:
                return m.group(1)
    raise AssertionError(f"{REQUIREMENTS}: no torch== pin")


def test_the_suite_runs_under_the_torch_it_was_started_for():
    wanted = os.environ.get("ANYGPU_TEST_TORCH")
    assert wanted in ("system", "current"), \
        f"ANYGPU_TEST_TORCH is {wanted!r}: run the suites through ctest (python_pytest*)"
    local = torch.__version__.split("+")[0]
    if wanted == "system":
        assert torch.__file__.startswith("/usr/lib/python3/dist-packages/"), torch.__file__
        assert local.startswith("1.13"), torch.__version__
    else:
        assert local == _pinned_torch(), (torch.__version__, torch.__file__)
        assert not torch.__file__.startswith("/usr/lib/"), torch.__file__
