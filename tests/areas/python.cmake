# The Python package (python/anygpu) against the libanygpu.so and CLI of this build, under two
# torches: Debian's python3-torch 1.13 (the oldest supported) and the newest from PyPI in the
# venv `make test` prepares (tools/torch_venv.sh, pins in tests/python/requirements-current.txt).
# LABELS system: they start processes (DDP, anygpu run) and run once.
set(_python_env "PYTHONPATH=${CMAKE_SOURCE_DIR}/python;ANYGPU_LIBRARY=$<TARGET_FILE:anygpu_shared>;ANYGPU_BINARY=$<TARGET_FILE:anygpu>;PYTHONDONTWRITEBYTECODE=1")
add_test(NAME python_pytest
         COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider ${CMAKE_SOURCE_DIR}/tests/python)
add_test(NAME python_pytest_current_torch
         COMMAND ${CMAKE_SOURCE_DIR}/tests/python/with_current_torch.sh
                 -m pytest -q -p no:cacheprovider ${CMAKE_SOURCE_DIR}/tests/python)
set_tests_properties(python_pytest PROPERTIES
  ENVIRONMENT "${_python_env};ANYGPU_TEST_TORCH=system" LABELS system TIMEOUT 600)
set_tests_properties(python_pytest_current_torch PROPERTIES
  ENVIRONMENT "${_python_env};ANYGPU_TEST_TORCH=current" LABELS system TIMEOUT 600)
# anygpu.torch.Accelerator against accelerate.Accelerator (same scripts, `accelerate launch` vs
# `anygpu run`, 1 and 2 processes): only the venv has accelerate, so the suite lives outside
# tests/python, which the Debian run collects, and fails (never skips) without it.
add_test(NAME python_accelerate_parity
         COMMAND ${CMAKE_SOURCE_DIR}/tests/python/with_current_torch.sh
                 -m pytest -q -p no:cacheprovider ${CMAKE_SOURCE_DIR}/tests/python_accelerate)
set_tests_properties(python_accelerate_parity PROPERTIES
  ENVIRONMENT "${_python_env};ANYGPU_TEST_TORCH=current" LABELS system TIMEOUT 600)
# The three suites start multi-process gloo jobs. Run beside other tests on two cores, torch
# 2.15's ranks were seen to abort at exit ("terminate called without an active exception") when
# starved of CPU; each suite runs alone, with both cores for its ranks.
set_tests_properties(python_pytest python_pytest_current_torch python_accelerate_parity
  PROPERTIES RUN_SERIAL ON)
