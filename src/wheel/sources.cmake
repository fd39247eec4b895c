# `anygpu wheel`: the choice of framework build and the judge of the installed one. The build
# table itself (data/wheels.yaml) is registry data (src/registry/wheel_data.*).
set(ANYGPU_WHEEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/choose.cc
  ${CMAKE_CURRENT_LIST_DIR}/framework_check.cc
  ${CMAKE_CURRENT_LIST_DIR}/recommend.cc
)
set(ANYGPU_WHEEL_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/wheel_cmd.cc
)
