# `anygpu run`: --engine-arg values read as the container engine reads them; the progress beats
# of --debug-hangs.
set(ANYGPU_LAUNCH_FUZZ_TARGETS engine_flags hang_beat)
