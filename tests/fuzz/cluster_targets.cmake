# Slurm: hostlist expressions and compressed tasks-per-node lists.
set(ANYGPU_CLUSTER_FUZZ_TARGETS hostlist)
