# The container-edits seam: registry rules per vendor, and CDI vs `run --container` granting the
# same nodes, mounts and environment on every fixture host.
list(APPEND ANYGPU_UNIT_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../unit/container_edits_test.cc)
# A made-up vendor that exists only as data (tests/registry/acme) through every layer.
list(APPEND ANYGPU_UNIT_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../unit/registry_madeup_test.cc)
# The host driver's user space (driver_files resolved through ld.so.cache, beneath the root)
# and anygpu's own CDI hooks (update-ldcache, create-dev-char-links) through the confined writer.
list(APPEND ANYGPU_UNIT_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../unit/container_driver_files_test.cc
     ${CMAKE_CURRENT_LIST_DIR}/../unit/container_driver_version_test.cc
     ${CMAKE_CURRENT_LIST_DIR}/../unit/container_cdi_hooks_test.cc)
# Real Podman on four fixture hosts carrying mock vendor drivers: one image finds each host's
# own library by soname, its tool, read-only mounts, nothing of another vendor (needs root).
add_test(NAME driver_podman_e2e
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/driver_podman_test.sh $<TARGET_FILE:anygpu>
                 ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(driver_podman_e2e PROPERTIES LABELS system RESOURCE_LOCK podman TIMEOUT 600)
