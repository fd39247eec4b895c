# `anygpu run`: the /etc/group reader (numeric ids for --group-add).
set(ANYGPU_LAUNCH_FUZZ_TARGETS launch_etc_group)
