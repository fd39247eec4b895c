# `anygpu health`: the parsers (AER, kmsg, Xid, RAS, the rules table), the evaluation on fixture
# copies carrying real-format evidence, and the CLI's exit codes.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/health_parsers_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/health_eval_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/health_dcmi_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/health_level_zero_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/health_nvml_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/health_sources_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/health_verdict_test.cc
)
# NVML with health entry points (ECC, row remapping, retired pages, clocks events, processes).
list(APPEND ANYGPU_MOCKS nvml_health)
add_test(NAME health_cli COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/health_cli_test.sh
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
