# Kernel CPU lists ("0-3,8,10-11").
set(ANYGPU_UTIL_FUZZ_TARGETS cpulist)
