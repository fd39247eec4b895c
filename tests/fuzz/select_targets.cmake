# The accelerator-config.yaml parser (`anygpu select`).
set(ANYGPU_SELECT_FUZZ_TARGETS accelerator_config)
