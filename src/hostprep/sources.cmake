# `anygpu host-init` and `anygpu init`: preparing a host, scaffolding an experiment.
set(ANYGPU_HOSTPREP_SOURCES
)
set(ANYGPU_HOSTPREP_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/host_init_cmd.cc
  ${CMAKE_CURRENT_LIST_DIR}/../cli/init_cmd.cc
)
