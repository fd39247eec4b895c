# Vendor libraries out of process: the worker message format, the worker itself
# (`anygpu __worker`, modes probe, health and sample), and the parent's sessions that spawn,
# time and judge it; NVML's health calls and the metrics samplers' library calls run only in
# the worker.
set(ANYGPU_WORKER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/health_client.cc
  ${CMAKE_CURRENT_LIST_DIR}/health_protocol.cc
  ${CMAKE_CURRENT_LIST_DIR}/locate.cc
  ${CMAKE_CURRENT_LIST_DIR}/message.cc
  ${CMAKE_CURRENT_LIST_DIR}/probe_client.cc
  ${CMAKE_CURRENT_LIST_DIR}/probe_protocol.cc
  ${CMAKE_CURRENT_LIST_DIR}/process.cc
  ${CMAKE_CURRENT_LIST_DIR}/remote_sampler.cc
  ${CMAKE_CURRENT_LIST_DIR}/sample_protocol.cc
  ${CMAKE_CURRENT_LIST_DIR}/sample_serve.cc
  ${CMAKE_CURRENT_LIST_DIR}/serve.cc
  ${CMAKE_CURRENT_LIST_DIR}/serve_io.cc
)
set(ANYGPU_WORKER_CLI_SOURCES)
