# `anygpu preflight`: the per-process result files and the verdict per device (unit); the
# command end to end on the CPU with gloo under both torches lives in tests/python
# (test_preflight.py): a real launch, a fixture host's held and simulated devices, a hung test
# process stopped at --timeout.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/preflight_result_test.cc
)
# In a container with real Podman: the image's torch (2.x) runs the test, not the host's.
add_test(NAME preflight_podman
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/preflight_podman_test.sh $<TARGET_FILE:anygpu>
                 $<TARGET_FILE:anygpu_shared> ${CMAKE_SOURCE_DIR})
set_tests_properties(preflight_podman PROPERTIES LABELS system RESOURCE_LOCK podman TIMEOUT 300)
