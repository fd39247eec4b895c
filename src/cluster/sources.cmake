# Slurm and Kubernetes: hostlists, allocation environment, gres.conf, NFD labels, Job manifests.
set(ANYGPU_CLUSTER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/slurm_env.cc
  ${CMAKE_CURRENT_LIST_DIR}/hostlist.cc
  ${CMAKE_CURRENT_LIST_DIR}/tasks_per_node.cc
  ${CMAKE_CURRENT_LIST_DIR}/core_map.cc
  ${CMAKE_CURRENT_LIST_DIR}/gres.cc
  ${CMAKE_CURRENT_LIST_DIR}/k8s.cc
  ${CMAKE_CURRENT_LIST_DIR}/k8s_names.cc
  ${CMAKE_CURRENT_LIST_DIR}/k8s_taint.cc
  ${CMAKE_CURRENT_LIST_DIR}/slurm_drain.cc
)
set(ANYGPU_CLUSTER_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/slurm_cmd.cc
  ${CMAKE_CURRENT_LIST_DIR}/../cli/k8s_cmd.cc
)
