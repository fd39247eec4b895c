# `anygpu topo`: KFD link, PCI path and PCIe class parsers, link validation, the MI210 fixture
# (public KFD capture) and damaged copies; goldens of topo and topo --json, the JSON schema.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/topo_parse_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/topo_links_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/topo_closeness_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/topo_nvlink_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/topo_partition_links_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/topo_hccs_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/topo_xelink_test.cc
)
list(APPEND ANYGPU_MOCKS dcmi_no_topo)
# ze_fabric (Level Zero's fabric extension) is listed by tests/areas/vendorlib.cmake.
add_test(NAME topo_cli
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/topo_cli_test.py
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/.. $<TARGET_FILE:mock_nvml_nvlink>
         $<TARGET_FILE:mock_nvml_ok> $<TARGET_FILE:mock_dcmi_metrics>
         $<TARGET_FILE:mock_dcmi_no_topo> $<TARGET_FILE:mock_ze_fabric>)
set_tests_properties(topo_cli PROPERTIES TIMEOUT 120)
