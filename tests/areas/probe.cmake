# Discovery: sysfs, PCI, runtimes, every fixture host, vendor libraries (mock libraries
# loaded through the production path) and malformed hosts.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/sysfs_parse_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/pci_ids_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/runtimes_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/fixture_hosts_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/vendor_libraries_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/malformed_host_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/partition_parse_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/partitions_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/vnpu_dcmi_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/sriov_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/partitions_more_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/mig_nvml_test.cc
)
list(APPEND ANYGPU_MOCKS nvml_ok nvml_mig nvml_nvlink nvml_init_error nvml_missing_symbol nvml_hang rocm_smi_ok ze_ok)
