# `anygpu wheel`: framework build tables and the choice of variant.
set(ANYGPU_WHEEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/framework_check.cc
)
set(ANYGPU_WHEEL_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/wheel_cmd.cc
)
