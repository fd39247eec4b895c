# Slurm: hostlist expressions and compressed tasks-per-node lists; the Node document `k8s taint`
# reads.
set(ANYGPU_CLUSTER_FUZZ_TARGETS hostlist k8s_node)
