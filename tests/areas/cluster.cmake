# Slurm and Kubernetes (`anygpu slurm`, `anygpu k8s`, the Slurm allocation environment).
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/cluster_hostlist_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/cluster_slurm_env_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/cluster_gres_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/cluster_k8s_test.cc)
# A real slurmctld + slurmd on localhost with the gres.conf `anygpu slurm gres` writes, and
# `srun -n 2 anygpu run` (needs root for mknod; Debian slurm-wlm).
add_test(NAME cluster_slurm_e2e
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/cluster_slurm_test.sh $<TARGET_FILE:anygpu>
                 ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(cluster_slurm_e2e PROPERTIES LABELS system RESOURCE_LOCK slurm TIMEOUT 300)
