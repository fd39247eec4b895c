# Discovery (`anygpu detect`): sysfs and PCI, runtimes, the vendor backends, and the probe of
# their libraries (libs/: the worker's probe mode; each library's own calls are in src/vendorlib/).
set(ANYGPU_PROBE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/sysfs_parse.cc
  ${CMAKE_CURRENT_LIST_DIR}/sysfs_value.cc
  ${CMAKE_CURRENT_LIST_DIR}/partition_parse.cc
  ${CMAKE_CURRENT_LIST_DIR}/host_info.cc
  ${CMAKE_CURRENT_LIST_DIR}/pci.cc
  ${CMAKE_CURRENT_LIST_DIR}/pci_ids.cc
  ${CMAKE_CURRENT_LIST_DIR}/sriov.cc
  ${CMAKE_CURRENT_LIST_DIR}/runtimes.cc
  ${CMAKE_CURRENT_LIST_DIR}/probe.cc
  ${CMAKE_CURRENT_LIST_DIR}/vendors/backend.cc
  ${CMAKE_CURRENT_LIST_DIR}/vendors/nvidia.cc
  ${CMAKE_CURRENT_LIST_DIR}/vendors/nvidia_mig.cc
  ${CMAKE_CURRENT_LIST_DIR}/vendors/amd.cc
  ${CMAKE_CURRENT_LIST_DIR}/vendors/amd_partitions.cc
  ${CMAKE_CURRENT_LIST_DIR}/vendors/ascend.cc
  ${CMAKE_CURRENT_LIST_DIR}/vendors/intel.cc
  ${CMAKE_CURRENT_LIST_DIR}/libs/library_probe.cc
  ${CMAKE_CURRENT_LIST_DIR}/libs/probe_client.cc
  ${CMAKE_CURRENT_LIST_DIR}/libs/probe_protocol.cc
)
set(ANYGPU_PROBE_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/detect_cmd.cc
)
