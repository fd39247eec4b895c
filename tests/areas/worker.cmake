# Vendor libraries out of process (src/worker/): the message format, and mock libraries that
# crash, abort, exit or print, loaded through the production path by detect, select, metrics,
# the exporter and the C ABI.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/worker_message_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/worker_isolation_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/worker_sample_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/metrics_isolation_test.cc
)
list(APPEND ANYGPU_MOCKS nvml_init_segv nvml_init_abort nvml_init_exit nvml_stdout nvml_ctor_segv)

# The CLI end to end: exit codes, stdout that stays eval-able and parseable.
add_test(NAME worker_cli
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/worker_cli_test.sh $<TARGET_FILE:anygpu>
          ${CMAKE_CURRENT_LIST_DIR}/../hosts ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(worker_cli PROPERTIES TIMEOUT 120)

