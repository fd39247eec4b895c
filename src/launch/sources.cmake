# `anygpu run`: the launch planner and its executor.
set(ANYGPU_LAUNCH_SOURCES
)
set(ANYGPU_LAUNCH_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/run_cmd.cc
)
