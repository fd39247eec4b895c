# The vendor registry and its compiler's checks.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/registry_facts_not_in_code_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/registry_test.cc
)
