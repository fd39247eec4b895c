# The container-edits seam: registry rules per vendor, and CDI vs `run --container` granting the
# same nodes, mounts and environment on every fixture host.
list(APPEND ANYGPU_UNIT_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../unit/container_edits_test.cc)
# A made-up vendor that exists only as data (tests/registry/acme) through every layer.
list(APPEND ANYGPU_UNIT_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../unit/registry_madeup_test.cc)
