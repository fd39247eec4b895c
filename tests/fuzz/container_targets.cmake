# The container state a runtime hands a CDI hook (stdin), with its bundle's config.json.
set(ANYGPU_CONTAINER_FUZZ_TARGETS oci_state driver_version)
