# `anygpu preflight`: the per-device results its launched processes write, judged against the
# registry's datasheet figures. The command composes select, launch and this.
set(ANYGPU_PREFLIGHT_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/preflight_result.cc
)
set(ANYGPU_PREFLIGHT_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/preflight_cmd.cc
)
