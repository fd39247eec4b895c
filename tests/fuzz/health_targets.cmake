# The kernel-log and counter parsers behind `anygpu health`, and its NVML worker reply.
set(ANYGPU_HEALTH_FUZZ_TARGETS health_kmsg health_counters health_reply)
