# `anygpu ps`: processes holding accelerator device nodes, their DRM statistics and owners.
set(ANYGPU_PS_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/allocation.cc
  ${CMAKE_CURRENT_LIST_DIR}/fdinfo.cc
  ${CMAKE_CURRENT_LIST_DIR}/cgroup.cc
  ${CMAKE_CURRENT_LIST_DIR}/processes.cc
  ${CMAKE_CURRENT_LIST_DIR}/render.cc
  ${CMAKE_CURRENT_LIST_DIR}/http2.cc
  ${CMAKE_CURRENT_LIST_DIR}/protobuf_wire.cc
  ${CMAKE_CURRENT_LIST_DIR}/grpc_unix.cc
  ${CMAKE_CURRENT_LIST_DIR}/pod_resources.cc
)
set(ANYGPU_PS_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/ps_cmd.cc
)
