# `anygpu exporter`: the HTTP server (unit), and the exporter against a real Prometheus, a hung
# vendor library, load and hostile clients, and the shipped deploy files (end to end).
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/exporter_health_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/exporter_http_request_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/exporter_jobs_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/exporter_job_allocations_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/exporter_journal_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/exporter_listen_address_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/exporter_processes_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/exporter_server_test.cc
)

set(_exporter_e2e ${CMAKE_CURRENT_LIST_DIR}/../e2e)
set(_exporter_hosts ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set(_exporter_py /usr/bin/python3)

# Prometheus 2.x scrapes the exporter and answers queries; promtool lints the exposition.
add_test(NAME exporter_prometheus
  COMMAND ${_exporter_py} ${_exporter_e2e}/exporter_prometheus_test.py $<TARGET_FILE:anygpu>
          ${_exporter_hosts}/mi300x-8x ${CMAKE_SOURCE_DIR}/deploy/grafana/anygpu-dashboard.json)
set_tests_properties(exporter_prometheus PROPERTIES LABELS system TIMEOUT 180)

# 10,000 scrapes at concurrency 16, resident memory flat.
add_test(NAME exporter_load
  COMMAND ${_exporter_py} ${_exporter_e2e}/exporter_load_test.py $<TARGET_FILE:anygpu>
          ${_exporter_hosts}/mi300x-8x)
set_tests_properties(exporter_load PROPERTIES LABELS system TIMEOUT 300 RUN_SERIAL TRUE)

# Malformed, oversized, slow and excess clients; the CLI's exit codes.
add_test(NAME exporter_faults
  COMMAND ${_exporter_py} ${_exporter_e2e}/exporter_faults_test.py $<TARGET_FILE:anygpu>
          ${_exporter_hosts}/mi300x-8x)
# Timing targets (deadlines in ms) are measured in the optimised build only: label timing.
set_tests_properties(exporter_faults PROPERTIES TIMEOUT 120 LABELS timing)

# Alert rules (promtool), dashboard, systemd unit (systemd-analyze), DaemonSet.
add_test(NAME exporter_deploy
  COMMAND ${_exporter_py} ${_exporter_e2e}/exporter_deploy_test.py $<TARGET_FILE:anygpu>
          ${CMAKE_SOURCE_DIR}/deploy)
set_tests_properties(exporter_deploy PROPERTIES LABELS system TIMEOUT 120)

# A hung NVML (the metrics area's mock with a "hang" switch) never hangs a scrape.
add_test(NAME exporter_nvml_hang
  COMMAND ${_exporter_py} ${_exporter_e2e}/exporter_nvml_hang_test.py $<TARGET_FILE:anygpu>
          ${_exporter_hosts}/h100-8x $<TARGET_FILE:mock_nvml_metrics>)
set_tests_properties(exporter_nvml_hang PROPERTIES TIMEOUT 120)
# NVML crashing mid-sample: down, crashes counted, restarts by backoff, one worker at most.
add_test(NAME exporter_nvml_crash
  COMMAND ${_exporter_py} ${_exporter_e2e}/exporter_nvml_crash_test.py $<TARGET_FILE:anygpu>
          ${_exporter_hosts}/h100-8x $<TARGET_FILE:mock_nvml_metrics>)
set_tests_properties(exporter_nvml_crash PROPERTIES TIMEOUT 120)

# 256 slowloris connections reopened when dropped; >= 99 % of scrapes within 100 ms.
add_test(NAME exporter_slowloris
  COMMAND ${_exporter_py} ${_exporter_e2e}/exporter_slowloris_test.py $<TARGET_FILE:anygpu>
          ${_exporter_hosts}/mi300x-8x)
set_tests_properties(exporter_slowloris PROPERTIES TIMEOUT 120 RUN_SERIAL TRUE LABELS timing)

# Health series follow a fixture's kernel log, and recover once the record leaves the window.
add_test(NAME exporter_health
  COMMAND ${_exporter_py} ${_exporter_e2e}/exporter_health_test.py $<TARGET_FILE:anygpu>
          ${_exporter_hosts}/h100-8x)
set_tests_properties(exporter_health PROPERTIES TIMEOUT 120)

# --processes: the process series from a fixture /proc, through the real exporter.
add_test(NAME exporter_processes
  COMMAND ${_exporter_py} ${_exporter_e2e}/exporter_processes_test.py $<TARGET_FILE:anygpu>
          ${_exporter_hosts}/mi300x-8x)
set_tests_properties(exporter_processes PROPERTIES TIMEOUT 120)

# The exporter (with health and --processes) and `top` discover the host once and share it:
# a mock NVML counts the discovery workers it is initialised in.
add_test(NAME exporter_top_probe_once
  COMMAND ${_exporter_py} ${_exporter_e2e}/probe_once_test.py $<TARGET_FILE:anygpu>
          ${_exporter_hosts}/h100-8x $<TARGET_FILE:mock_nvml_metrics>)
set_tests_properties(exporter_top_probe_once PROPERTIES TIMEOUT 120)

# --processes: per-job busy time, energy by engine-time share (summing to the device counter
# within 5 %), memory, allocated-but-idle devices and the series cap, from a fixture whose
# fdinfo and energy counter the test advances between scans.
add_test(NAME exporter_jobs
  COMMAND ${_exporter_py} ${_exporter_e2e}/exporter_jobs_test.py $<TARGET_FILE:anygpu>
          ${_exporter_hosts}/mi300x-8x)
set_tests_properties(exporter_jobs PROPERTIES TIMEOUT 120)

# The job series, journal and `anygpu report --epilog` against a real slurmctld + slurmd on
# localhost (proctrack/cgroup on the cgroup v1 freezer): a batch job allocated both GPUs of a
# copied fixture holds one; the other is allocated-idle; unknown figures absent (needs root for
# mknod, the /proc bind mount and the cgroups; Debian slurm-wlm).
add_test(NAME exporter_slurm_jobs
  COMMAND ${_exporter_e2e}/exporter_slurm_jobs_test.sh $<TARGET_FILE:anygpu> ${_exporter_hosts})
set_tests_properties(exporter_slurm_jobs PROPERTIES LABELS system RESOURCE_LOCK slurm TIMEOUT 300)
# NVIDIA jobs' busy time from NVML's per-process utilisation (mock NVML through the worker).
# MIG: one memory series per instance (partition, partition_id, profile labels) from each MIG
# device handle; nothing else is per instance.
add_test(NAME exporter_mig
  COMMAND ${_exporter_py} ${_exporter_e2e}/exporter_mig_test.py $<TARGET_FILE:anygpu>
          ${_exporter_hosts}/h100-8x-mig $<TARGET_FILE:mock_nvml_mig>)
set_tests_properties(exporter_mig PROPERTIES TIMEOUT 120)
add_test(NAME exporter_nvml_jobs
  COMMAND ${_exporter_py} ${_exporter_e2e}/exporter_nvml_jobs_test.py $<TARGET_FILE:anygpu>
          ${_exporter_hosts}/h100-8x $<TARGET_FILE:mock_nvml_health>)
set_tests_properties(exporter_nvml_jobs PROPERTIES TIMEOUT 60)
