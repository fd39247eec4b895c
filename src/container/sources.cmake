# What a container needs for a selection (device nodes, mounts, env, hooks, groups): the one
# seam CDI generation, `run --container` and doctor read (src/container/container_edits.h).
set(ANYGPU_CONTAINER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/container_edits.cc
  ${CMAKE_CURRENT_LIST_DIR}/container_sources.cc
)
