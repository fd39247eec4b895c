# The command table and what every command shares; each command's own file is listed by the
# area it belongs to (src/<area>/sources.cmake).
set(ANYGPU_CLI_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/main.cc
  ${CMAKE_CURRENT_LIST_DIR}/cli.cc
  ${CMAKE_CURRENT_LIST_DIR}/help_dump.cc
  ${CMAKE_CURRENT_LIST_DIR}/worker_serve.cc
)
