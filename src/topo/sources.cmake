# `anygpu topo`: links between devices (KFD xGMI), PCIe distance classes from the PCI tree and
# the nearest RDMA NIC per device, from kernel interfaces; NVLink, HCCS and Xe Link from what the
# library worker read (nvlink.cc, hccs.cc, xelink.cc).
set(ANYGPU_TOPO_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/closeness.cc
  ${CMAKE_CURRENT_LIST_DIR}/hccs.cc
  ${CMAKE_CURRENT_LIST_DIR}/kfd_link.cc
  ${CMAKE_CURRENT_LIST_DIR}/kfd_topology.cc
  ${CMAKE_CURRENT_LIST_DIR}/nvlink.cc
  ${CMAKE_CURRENT_LIST_DIR}/pci_path.cc
  ${CMAKE_CURRENT_LIST_DIR}/pcie_class.cc
  ${CMAKE_CURRENT_LIST_DIR}/topology.cc
  ${CMAKE_CURRENT_LIST_DIR}/topology_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/topology_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/xelink.cc
)
set(ANYGPU_TOPO_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/topo_cmd.cc
)
