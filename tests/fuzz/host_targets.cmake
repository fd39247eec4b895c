# The host's /etc/group reader (numeric ids for containers' --group-add), and the
# /proc/PID/stat line that places a child's descendants in its tree, and /proc/locks (who holds
# the device locks of `anygpu run`).
set(ANYGPU_HOST_FUZZ_TARGETS etc_group proc_stat proc_locks)
