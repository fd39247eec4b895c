# `anygpu check`: the runtime contract (included into the anygpu_core target).
set(ANYGPU_CONTRACT_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/spec.cc
  ${CMAKE_CURRENT_LIST_DIR}/evaluate.cc
  ${CMAKE_CURRENT_LIST_DIR}/check.cc)
set(ANYGPU_CONTRACT_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/check_cmd.cc
)
