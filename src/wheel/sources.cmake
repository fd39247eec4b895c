# `anygpu wheel`: framework build tables and the choice of variant.
# data/wheels.yaml is embedded as text (parsed on first use, ~1 ms); editing it re-runs the
# configure step, so the binary always carries the file in the tree.
set(ANYGPU_WHEELS_YAML_FILE ${CMAKE_CURRENT_LIST_DIR}/../../data/wheels.yaml)
file(READ ${ANYGPU_WHEELS_YAML_FILE} ANYGPU_WHEELS_YAML)
configure_file(${CMAKE_CURRENT_LIST_DIR}/wheels_data.cc.in
               ${CMAKE_BINARY_DIR}/generated/wheels_data.cc @ONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ANYGPU_WHEELS_YAML_FILE})
set(ANYGPU_WHEEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/wheel_data.cc
  ${CMAKE_CURRENT_LIST_DIR}/choose.cc
  ${CMAKE_CURRENT_LIST_DIR}/framework_check.cc
  ${CMAKE_BINARY_DIR}/generated/wheels_data.cc
)
set(ANYGPU_WHEEL_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/wheel_cmd.cc
)
