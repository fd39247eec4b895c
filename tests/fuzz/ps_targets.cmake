# The fdinfo and cgroup parsers behind `anygpu ps`, its pod-resources reply reader, and the
# environ reader that finds a Slurm job's GPUs for the exporter.
set(ANYGPU_PS_FUZZ_TARGETS ps_fdinfo ps_cgroup ps_pod_resources ps_environ)
