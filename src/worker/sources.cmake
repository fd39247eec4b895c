# Vendor libraries out of process, the transport only: the worker message format, finding the
# binary, starting and timing the child, and the child's reply loop. The protocols live with
# their users (probe/libs/probe_*, health/health_*, metrics/sample_*); the `anygpu __worker`
# entry that knows all three is cli/worker_serve.cc.
set(ANYGPU_WORKER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/locate.cc
  ${CMAKE_CURRENT_LIST_DIR}/message.cc
  ${CMAKE_CURRENT_LIST_DIR}/process.cc
  ${CMAKE_CURRENT_LIST_DIR}/serve_io.cc
)
set(ANYGPU_WORKER_CLI_SOURCES)
