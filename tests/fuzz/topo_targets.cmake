# `anygpu topo`'s parsers: one KFD link's properties and a PCI function's sysfs path.
set(ANYGPU_TOPO_FUZZ_TARGETS kfd_link pci_sysfs_path)
