# The fdinfo and cgroup parsers behind `anygpu ps`.
set(ANYGPU_PS_FUZZ_TARGETS ps_fdinfo ps_cgroup)
