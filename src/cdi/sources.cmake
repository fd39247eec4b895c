# Container Device Interface: reading and generating specs (`anygpu cdi`).
set(ANYGPU_CDI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/cdi.cc
  ${CMAKE_CURRENT_LIST_DIR}/cdi_parse.cc
  ${CMAKE_CURRENT_LIST_DIR}/cdi_resolve.cc
  ${CMAKE_CURRENT_LIST_DIR}/cdi_defects.cc
  ${CMAKE_CURRENT_LIST_DIR}/cdi_generate.cc
  ${CMAKE_CURRENT_LIST_DIR}/cdi_names.cc
  ${CMAKE_CURRENT_LIST_DIR}/cdi_version.cc
)
set(ANYGPU_CDI_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/cdi_cmd.cc
)
