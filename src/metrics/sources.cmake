# `anygpu metrics` and `anygpu top`: samplers, the background collector, renderers.
set(ANYGPU_METRICS_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/backends.cc
  ${CMAKE_CURRENT_LIST_DIR}/collector.cc
  ${CMAKE_CURRENT_LIST_DIR}/dcmi_sampler.cc
  ${CMAKE_CURRENT_LIST_DIR}/nvml_sampler.cc
  ${CMAKE_CURRENT_LIST_DIR}/prometheus.cc
  ${CMAKE_CURRENT_LIST_DIR}/remote_library.cc
  ${CMAKE_CURRENT_LIST_DIR}/render.cc
  ${CMAKE_CURRENT_LIST_DIR}/sysfs_sampler.cc
  ${CMAKE_CURRENT_LIST_DIR}/sysfs_value.cc
  ${CMAKE_CURRENT_LIST_DIR}/top_view.cc
  ${CMAKE_CURRENT_LIST_DIR}/ze_sampler.cc
)
set(ANYGPU_METRICS_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/metrics_cmd.cc
  ${CMAKE_CURRENT_LIST_DIR}/../cli/top_cmd.cc
)
