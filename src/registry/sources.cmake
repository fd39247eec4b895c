# The vendor registry: data/vendors.yaml and data/devices.yaml, validated by the registry
# compiler (tools/registry_compile.cc, built from the BOOTSTRAP sources) and compiled into C++
# tables at build time.
set(ANYGPU_REGISTRY_BOOTSTRAP_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/registry.cc
  ${CMAKE_CURRENT_LIST_DIR}/registry_yaml.cc
  ${CMAKE_CURRENT_LIST_DIR}/registry_emit.cc
)
set(ANYGPU_REGISTRY_DATA ${CMAKE_CURRENT_LIST_DIR}/../../data/vendors.yaml
                         ${CMAKE_CURRENT_LIST_DIR}/../../data/devices.yaml)
set(ANYGPU_REGISTRY_CC ${CMAKE_BINARY_DIR}/generated/registry_data.cc)
add_custom_command(
  OUTPUT ${ANYGPU_REGISTRY_CC}
  COMMAND registry_compile ${ANYGPU_REGISTRY_DATA} ${ANYGPU_REGISTRY_CC}
  DEPENDS registry_compile ${ANYGPU_REGISTRY_DATA}
  COMMENT "Compiling the vendor registry")
# data/wheels.yaml, the framework build table, is embedded as text (parsed on first use, ~1 ms);
# editing it re-runs the configure step, so the binary always carries the file in the tree.
set(ANYGPU_WHEELS_YAML_FILE ${CMAKE_CURRENT_LIST_DIR}/../../data/wheels.yaml)
file(READ ${ANYGPU_WHEELS_YAML_FILE} ANYGPU_WHEELS_YAML)
configure_file(${CMAKE_CURRENT_LIST_DIR}/wheels_data.cc.in
               ${CMAKE_BINARY_DIR}/generated/wheels_data.cc @ONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ANYGPU_WHEELS_YAML_FILE})
set(ANYGPU_REGISTRY_SOURCES ${ANYGPU_REGISTRY_CC} ${CMAKE_CURRENT_LIST_DIR}/registry_override.cc
    ${CMAKE_CURRENT_LIST_DIR}/wheel_data.cc ${CMAKE_BINARY_DIR}/generated/wheels_data.cc)
set(ANYGPU_REGISTRY_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/vendors_cmd.cc
)
