# Text, numbers and versions; the diagnostics sink.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/strings_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/cpulist_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/diagnostics_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/env_vars_test.cc
)
