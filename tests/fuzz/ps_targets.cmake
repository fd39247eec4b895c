# The fdinfo and cgroup parsers behind `anygpu ps`, and its pod-resources reply reader.
set(ANYGPU_PS_FUZZ_TARGETS ps_fdinfo ps_cgroup ps_pod_resources)
