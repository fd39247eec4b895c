# `anygpu metrics` and `anygpu top`: samplers, the background collector, renderers.
set(ANYGPU_METRICS_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/collector.cc
  ${CMAKE_CURRENT_LIST_DIR}/prometheus.cc
)
set(ANYGPU_METRICS_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/metrics_cmd.cc
  ${CMAKE_CURRENT_LIST_DIR}/../cli/top_cmd.cc
)
