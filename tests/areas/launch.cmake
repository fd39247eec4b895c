# `anygpu run`: planner unit tests per fixture host, the executor with the real binary, Podman
# and torchrun end to end.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/launch_planner_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/launch_torchrun_slurm_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/launch_text_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/launch_engine_args_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/launch_partition_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/launch_hang_test.cc)

add_test(NAME launch_native COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/launch_native.sh
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(launch_native PROPERTIES TIMEOUT 120)

# Device locks: 100 concurrent runs of 2 devices on the 8-GPU fixture never share one while they
# overlap; --wait, refusals naming the holder, SIGKILL releasing, ps, unsafe lock directories.
add_test(NAME run_locks COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/run_locks_test.py
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(run_locks PROPERTIES TIMEOUT 300)

# torchrun launches: anygpu stays the parent, forwards signals, and no descendant survives;
# at a terminal, torchrun's group has the terminal (reads, ^Z, ^C) as an exec'd one would.
add_test(NAME launch_supervise COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/launch_supervise.sh
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(launch_supervise PROPERTIES TIMEOUT 120)
add_test(NAME launch_terminal COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/launch_terminal_test.py
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(launch_terminal PROPERTIES TIMEOUT 120)

add_test(NAME launch_podman COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/launch_podman.sh
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(launch_podman PROPERTIES LABELS system RESOURCE_LOCK podman TIMEOUT 600)

add_test(NAME launch_torchrun COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/launch_torchrun.sh
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(launch_torchrun PROPERTIES LABELS system TIMEOUT 600)
