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
set(ANYGPU_REGISTRY_SOURCES ${ANYGPU_REGISTRY_CC} ${CMAKE_CURRENT_LIST_DIR}/registry_override.cc)
set(ANYGPU_REGISTRY_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/vendors_cmd.cc
)
