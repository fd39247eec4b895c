# The host beneath --root: confined reads and writes; the processes anygpu starts.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/host_root_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/host_confined_writer_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/host_spawn_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/host_unit_lock_test.cc
)
