# `anygpu exporter`: the HTTP server for Prometheus.
set(ANYGPU_EXPORTER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/background.cc
  ${CMAKE_CURRENT_LIST_DIR}/exporter.cc
  ${CMAKE_CURRENT_LIST_DIR}/http_request.cc
  ${CMAKE_CURRENT_LIST_DIR}/http_response.cc
  ${CMAKE_CURRENT_LIST_DIR}/health_monitor.cc
  ${CMAKE_CURRENT_LIST_DIR}/job_accounting.cc
  ${CMAKE_CURRENT_LIST_DIR}/job_allocations.cc
  ${CMAKE_CURRENT_LIST_DIR}/job_journal.cc
  ${CMAKE_CURRENT_LIST_DIR}/job_journal_store.cc
  ${CMAKE_CURRENT_LIST_DIR}/job_render.cc
  ${CMAKE_CURRENT_LIST_DIR}/job_report.cc
  ${CMAKE_CURRENT_LIST_DIR}/listen_address.cc
  ${CMAKE_CURRENT_LIST_DIR}/process_monitor.cc
  ${CMAKE_CURRENT_LIST_DIR}/routes.cc
  ${CMAKE_CURRENT_LIST_DIR}/server.cc
)
set(ANYGPU_EXPORTER_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/exporter_cmd.cc
  ${CMAKE_CURRENT_LIST_DIR}/../cli/report_cmd.cc
)
# Compiled on its own in unity builds: HttpServer::Loop (declared in the header) holds this
# file's internal Connection type, which GCC accepts only in the file's own translation unit
# (-Wsubobject-linkage).
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/server.cc PROPERTIES
  SKIP_UNITY_BUILD_INCLUSION ON)
