# Device selection (`anygpu select`): config parsing, policy, output formats, CLI and C ABI.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/select_config_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/select_policy_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/select_output_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/select_partitions_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/select_golden_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/select_links_test.cc
)
