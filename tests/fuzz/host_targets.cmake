# The host's /etc/group reader (numeric ids for containers' --group-add).
set(ANYGPU_HOST_FUZZ_TARGETS etc_group)
