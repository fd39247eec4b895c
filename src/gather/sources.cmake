# `anygpu gather`: a copy of the files discovery reads, replayable as a fixture host.
set(ANYGPU_GATHER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/gather.cc
)
set(ANYGPU_GATHER_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/gather_cmd.cc
)
