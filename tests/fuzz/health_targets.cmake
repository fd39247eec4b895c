# The kernel-log and counter parsers behind `anygpu health`.
set(ANYGPU_HEALTH_FUZZ_TARGETS health_kmsg health_counters)
