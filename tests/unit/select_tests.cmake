# Device selection (`anygpu select`): config parsing, policy, output formats, CLI and C ABI.
set(ANYGPU_SELECT_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/select_config_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/select_policy_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/select_output_test.cc)
