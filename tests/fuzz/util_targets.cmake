# Kernel CPU lists ("0-3,8,10-11"); UTF-8 repair and terminal escaping of host strings; the
# values of environment variables (util/env_vars.h).
set(ANYGPU_UTIL_FUZZ_TARGETS cpulist text_escapes env_vars)
