# `anygpu run`: the launch planner (pure), the host facts it needs, and the executor.
set(ANYGPU_LAUNCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/planner.cc
  ${CMAKE_CURRENT_LIST_DIR}/container_plan.cc
  ${CMAKE_CURRENT_LIST_DIR}/engine_args.cc
  ${CMAKE_CURRENT_LIST_DIR}/engine_flags.cc
  ${CMAKE_CURRENT_LIST_DIR}/torchrun_plan.cc
  ${CMAKE_CURRENT_LIST_DIR}/slurm_map.cc
  ${CMAKE_CURRENT_LIST_DIR}/shell_quote.cc
  ${CMAKE_CURRENT_LIST_DIR}/plan_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/host_facts.cc
  ${CMAKE_CURRENT_LIST_DIR}/executor.cc
  ${CMAKE_CURRENT_LIST_DIR}/supervise.cc
  ${CMAKE_CURRENT_LIST_DIR}/command_line.cc
)
set(ANYGPU_LAUNCH_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/run_cmd.cc
)
