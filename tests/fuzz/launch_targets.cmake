# `anygpu run`: --engine-arg values read as the container engine reads them.
set(ANYGPU_LAUNCH_FUZZ_TARGETS engine_flags)
