# Container Device Interface spec files (YAML and JSON).
set(ANYGPU_CDI_FUZZ_TARGETS cdi_spec)
