# `anygpu gather`: a copy of the files the host's readers read, replayable as a fixture host,
# with a manifest and a privacy note (--redact replaces identifying values).
set(ANYGPU_GATHER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/copier.cc
  ${CMAKE_CURRENT_LIST_DIR}/gather.cc
  ${CMAKE_CURRENT_LIST_DIR}/identifiers.cc
  ${CMAKE_CURRENT_LIST_DIR}/kernel_log_filter.cc
  ${CMAKE_CURRENT_LIST_DIR}/manifest.cc
  ${CMAKE_CURRENT_LIST_DIR}/pci_config.cc
  ${CMAKE_CURRENT_LIST_DIR}/readers.cc
  ${CMAKE_CURRENT_LIST_DIR}/redact.cc
)
set(ANYGPU_GATHER_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/gather_cmd.cc
)
# The manifest names the exact build, as `anygpu --version` does: only the command file sees
# the git description, so a new commit recompiles one file.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/../cli/gather_cmd.cc PROPERTIES
  COMPILE_DEFINITIONS "ANYGPU_GIT_DESCRIPTION=\"${ANYGPU_GIT_DESCRIPTION}\"")
