# `anygpu exporter`: the HTTP server for Prometheus.
set(ANYGPU_EXPORTER_SOURCES
)
set(ANYGPU_EXPORTER_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/exporter_cmd.cc
)
