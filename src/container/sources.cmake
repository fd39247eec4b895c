# What a container needs for a selection (device nodes, mounts, env, hooks, groups): the one
# seam CDI generation, `run --container` and doctor read (src/container/container_edits.h),
# with the host driver's user space (driver_files, driver_source) and the CDI hooks that wire
# it up inside the container (cdi_hooks).
set(ANYGPU_CONTAINER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/container_edits.cc
  ${CMAKE_CURRENT_LIST_DIR}/container_sources.cc
  ${CMAKE_CURRENT_LIST_DIR}/partition_edits.cc
  ${CMAKE_CURRENT_LIST_DIR}/driver_files.cc
  ${CMAKE_CURRENT_LIST_DIR}/driver_version.cc
  ${CMAKE_CURRENT_LIST_DIR}/driver_source.cc
  ${CMAKE_CURRENT_LIST_DIR}/cdi_hooks.cc
)
