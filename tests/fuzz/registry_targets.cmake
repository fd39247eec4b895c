# data/vendors.yaml and data/devices.yaml as the registry compiler reads them.
set(ANYGPU_REGISTRY_FUZZ_TARGETS registry_yaml)
