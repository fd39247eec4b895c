# Discovery's parsers: one-value sysfs attributes, NVIDIA's /proc information, KFD properties,
# os-release, pci.ids, PCI addresses, version strings, and whole-host discovery.
set(ANYGPU_PROBE_FUZZ_TARGETS link nvidia_information kfd_properties os_release pci_ids pci_address
  versions host)
