# Device selection (`anygpu select`): config parsing, policy, output formats, CLI and C ABI.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/select_config_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/select_policy_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/select_output_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/select_partitions_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/select_golden_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/select_links_test.cc
)
list(APPEND ANYGPU_UNIT_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../unit/select_occupancy_test.cc)
# Occupancy criteria on a fixture whose metrics and /proc reject one device by each (free
# memory, utilisation, holders) and one by an unknown value: `select -v`, `--json` and
# `run --dry-run -v` give each reason; NVML's process list (the mock, through the worker)
# decides the holders on NVIDIA.
add_test(NAME select_occupancy
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/select_occupancy_test.py
                 $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts/mi300x-8x
                 ${CMAKE_CURRENT_LIST_DIR}/../hosts/h100-8x $<TARGET_FILE:mock_nvml_health>)
set_tests_properties(select_occupancy PROPERTIES TIMEOUT 120)
