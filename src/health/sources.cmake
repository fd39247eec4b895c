# `anygpu health`: findings per device from kernel interfaces. data/health.yaml (Xid catalogue,
# driver messages) is embedded as text and parsed on first use.
set(ANYGPU_HEALTH_YAML_FILE ${CMAKE_CURRENT_LIST_DIR}/../../data/health.yaml)
file(READ ${ANYGPU_HEALTH_YAML_FILE} ANYGPU_HEALTH_YAML)
configure_file(${CMAKE_CURRENT_LIST_DIR}/health_data.cc.in
               ${CMAKE_BINARY_DIR}/generated/health_data.cc @ONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ANYGPU_HEALTH_YAML_FILE})
set(ANYGPU_HEALTH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/aer.cc
  ${CMAKE_CURRENT_LIST_DIR}/kmsg.cc
  ${CMAKE_CURRENT_LIST_DIR}/kernel_log.cc
  ${CMAKE_CURRENT_LIST_DIR}/coverage.cc
  ${CMAKE_CURRENT_LIST_DIR}/ras.cc
  ${CMAKE_CURRENT_LIST_DIR}/rules.cc
  ${CMAKE_CURRENT_LIST_DIR}/sysfs_checks.cc
  ${CMAKE_CURRENT_LIST_DIR}/kmsg_checks.cc
  ${CMAKE_CURRENT_LIST_DIR}/library_checks.cc
  ${CMAKE_CURRENT_LIST_DIR}/health.cc
  ${CMAKE_CURRENT_LIST_DIR}/health_client.cc
  ${CMAKE_CURRENT_LIST_DIR}/health_protocol.cc
  ${CMAKE_CURRENT_LIST_DIR}/render.cc
  ${CMAKE_CURRENT_LIST_DIR}/window.cc
  ${CMAKE_CURRENT_LIST_DIR}/verdict.cc
  ${CMAKE_BINARY_DIR}/generated/health_data.cc
)
set(ANYGPU_HEALTH_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/health_cmd.cc
  ${CMAKE_CURRENT_LIST_DIR}/../cli/node_health.cc
)
