# Slurm and Kubernetes (`anygpu slurm`, `anygpu k8s`, the Slurm allocation environment).
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/cluster_hostlist_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/cluster_slurm_env_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/cluster_gres_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/partition_cluster_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/cluster_k8s_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/cluster_drain_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/cluster_links_test.cc)
# A real slurmctld + slurmd on localhost with the gres.conf `anygpu slurm gres` writes, and
# `srun -n 2 anygpu run` (needs root for mknod; Debian slurm-wlm).
add_test(NAME cluster_slurm_e2e
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/cluster_slurm_test.sh $<TARGET_FILE:anygpu>
                 ${CMAKE_CURRENT_LIST_DIR}/../hosts $<TARGET_FILE:mock_nvml_mig>)
set_tests_properties(cluster_slurm_e2e PROPERTIES LABELS system RESOURCE_LOCK slurm TIMEOUT 300)
# The preemption recipe (tests/python/preemptible_train.py) in a real `sbatch --requeue` job under
# `anygpu run`: `scontrol requeue` -> SIGTERM -> save -> restart 1 resumes to the uninterrupted
# result (Debian's torch); then `srun anygpu preflight` in a step.
add_test(NAME cluster_slurm_requeue
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/slurm_requeue_test.sh $<TARGET_FILE:anygpu>
                 ${CMAKE_SOURCE_DIR} /usr/bin/python3)
set_tests_properties(cluster_slurm_requeue PROPERTIES LABELS system RESOURCE_LOCK slurm TIMEOUT 300
  ENVIRONMENT "ANYGPU_LIBRARY=$<TARGET_FILE:anygpu_shared>")
# The real `slurmd -G` reads the gres.conf of every fixture host, mixed ones included (needs root
# for mknod; Debian slurm-wlm). No daemon is started: -G configures the GRES, prints them, exits.
add_test(NAME cluster_slurm_gres_fixtures
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/slurm_gres_fixtures_test.sh $<TARGET_FILE:anygpu>
                 ${CMAKE_CURRENT_LIST_DIR}/../hosts $<TARGET_FILE:mock_nvml_nvlink>
                 $<TARGET_FILE:mock_dcmi_metrics> $<TARGET_FILE:mock_ze_fabric>)
set_tests_properties(cluster_slurm_gres_fixtures PROPERTIES LABELS system TIMEOUT 300)
# The generated PyTorchJob's pods run as local processes with the training operator's
# environment (2 pods x 2 processes, gloo DDP through Debian's torchrun).
add_test(NAME cluster_k8s_pytorchjob
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/k8s_pytorchjob_test.sh $<TARGET_FILE:anygpu>)
set_tests_properties(cluster_k8s_pytorchjob PROPERTIES LABELS system TIMEOUT 400)
# Every manifest anygpu writes (`k8s job`, `k8s labels`, deploy/kubernetes, `cdi generate` on
# every fixture host) against the upstream schemas in tests/schemas, and broken copies that
# they must refuse (Debian python3-jsonschema, python3-yaml).
add_test(NAME manifest_schemas
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/manifest_schema_test.py
                 $<TARGET_FILE:anygpu> ${CMAKE_SOURCE_DIR})
set_tests_properties(manifest_schemas PROPERTIES TIMEOUT 120)
# `anygpu health --slurm` against a real slurmctld + slurmd on localhost: an Xid 79 drains the
# node with the code and bus id as the reason, by hand and as the HealthCheckProgram; a healthy
# copy leaves it idle (Debian slurm-wlm; slurmd runs the HealthCheckProgram as root).
add_test(NAME cluster_health_slurm
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/health_slurm_test.sh $<TARGET_FILE:anygpu>
                 ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(cluster_health_slurm PROPERTIES LABELS system RESOURCE_LOCK slurm TIMEOUT 300)
