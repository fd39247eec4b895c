# `anygpu host-init` and `anygpu init`.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/hostprep_host_init_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/hostprep_scaffold_test.cc)
add_test(NAME e2e_hostprep COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/hostprep_cli_test.sh
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
# The scaffolded Dockerfile builds offline with Podman against a local BusyBox base.
add_test(NAME e2e_hostprep_image COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/hostprep_image_test.sh
         $<TARGET_FILE:anygpu> $<TARGET_FILE:anygpu_shared> ${CMAKE_SOURCE_DIR})
set_tests_properties(e2e_hostprep_image PROPERTIES LABELS system RESOURCE_LOCK podman TIMEOUT 600)
# Every writer (host-init, cdi, init, gather, slurm, k8s) against planted links and kill -9
# (the preload widens the write windows so the kills land inside them).
add_library(slow_writes_preload SHARED ${CMAKE_CURRENT_LIST_DIR}/../e2e/slow_writes_preload.cc)
set_target_properties(slow_writes_preload PROPERTIES PREFIX "")
target_link_libraries(slow_writes_preload PRIVATE ${CMAKE_DL_LIBS})
add_test(NAME e2e_writes_confined
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/writes_confined_test.py
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts
         $<TARGET_FILE:slow_writes_preload>)
# Its kill -9 points are timed against the optimised build's writes: label timing.
set_tests_properties(e2e_writes_confined PROPERTIES TIMEOUT 120 LABELS timing)
