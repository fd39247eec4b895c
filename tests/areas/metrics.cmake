# `anygpu metrics` / `anygpu top`: sampler, collector, renderer and NVML-mock tests; the
# Prometheus text checked by promtool; `top` driven in tmux.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/metrics_sysfs_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/metrics_nvml_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/metrics_mig_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/metrics_collector_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/metrics_render_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/metrics_schema_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/metrics_level_zero_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/metrics_dcmi_test.cc
)
list(APPEND ANYGPU_MOCKS nvml_metrics ze_metrics dcmi_metrics)

add_test(NAME e2e_metrics_cli
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/metrics_cli.sh $<TARGET_FILE:anygpu>
                 ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(e2e_metrics_cli PROPERTIES TIMEOUT 120 LABELS system)
add_test(NAME e2e_metrics_top_tmux
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/metrics_top_tmux.sh $<TARGET_FILE:anygpu>
                 ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(e2e_metrics_top_tmux PROPERTIES TIMEOUT 120 LABELS system)
