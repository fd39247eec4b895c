# Discovery's parsers: one-value sysfs attributes, NVIDIA's /proc information, KFD properties,
# os-release, pci.ids, PCI addresses, version strings, whole-host discovery, and the sysfs/hwmon
# value parser that metrics and health read attributes with, and the partition files (AMD mode
# files, nvidia-caps mig-minors and access files, /proc/devices).
set(ANYGPU_PROBE_FUZZ_TARGETS link nvidia_information kfd_properties os_release pci_ids pci_address
  versions host sysfs_value partition_files)
