# `anygpu preflight`: the per-process result files and the verdict per device (unit); the
# command end to end on the CPU with gloo under both torches lives in tests/python
# (test_preflight.py): a real launch, a fixture host's held and simulated devices, a hung test
# process stopped at --timeout.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/preflight_result_test.cc
)
