# The host beneath --root: confined reads and writes, Unix socket connections, options, vendor
# libraries, deadlines, ld.so.cache; and the processes anygpu starts (spawn, process trees).
# The confined writer is also the registry compiler's way to write its output.
set(ANYGPU_HOST_BOOTSTRAP_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/confined_writer.cc
)
set(ANYGPU_HOST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/host_root.cc
  ${CMAKE_CURRENT_LIST_DIR}/host_options.cc
  ${CMAKE_CURRENT_LIST_DIR}/dynamic_library.cc
  ${CMAKE_CURRENT_LIST_DIR}/deadline.cc
  ${CMAKE_CURRENT_LIST_DIR}/ld_cache.cc
  ${CMAKE_CURRENT_LIST_DIR}/unix_socket.cc
  ${CMAKE_CURRENT_LIST_DIR}/etc_group.cc
  ${CMAKE_CURRENT_LIST_DIR}/spawn.cc
  ${CMAKE_CURRENT_LIST_DIR}/child.cc
  ${CMAKE_CURRENT_LIST_DIR}/process_tree.cc
  ${CMAKE_CURRENT_LIST_DIR}/unit_lock.cc
)
