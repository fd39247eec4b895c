# `anygpu ps`: processes holding accelerator device nodes, their DRM statistics and owners.
set(ANYGPU_PS_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/fdinfo.cc
  ${CMAKE_CURRENT_LIST_DIR}/cgroup.cc
  ${CMAKE_CURRENT_LIST_DIR}/processes.cc
  ${CMAKE_CURRENT_LIST_DIR}/render.cc
)
set(ANYGPU_PS_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/ps_cmd.cc
)
