# Vendor libraries out of process: the worker message format, the worker itself
# (`anygpu __worker`), and the parent's sessions that spawn, time and judge it.
set(ANYGPU_WORKER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/locate.cc
  ${CMAKE_CURRENT_LIST_DIR}/message.cc
  ${CMAKE_CURRENT_LIST_DIR}/probe_client.cc
  ${CMAKE_CURRENT_LIST_DIR}/probe_protocol.cc
  ${CMAKE_CURRENT_LIST_DIR}/process.cc
  ${CMAKE_CURRENT_LIST_DIR}/serve.cc
  ${CMAKE_CURRENT_LIST_DIR}/serve_io.cc
)
set(ANYGPU_WORKER_CLI_SOURCES)
