# The kernel-log parsers (/dev/kmsg records, syslog(2) text) and counter parsers behind
# `anygpu health`, and its library worker reply.
set(ANYGPU_HEALTH_FUZZ_TARGETS health_kmsg health_syslog health_counters health_reply)
