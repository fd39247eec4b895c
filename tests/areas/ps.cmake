# `anygpu ps`: fdinfo and cgroup parsers, the fixture /proc scan, and a real process on this
# machine holding a fixture's device node from inside a Slurm-shaped cgroup.
list(APPEND ANYGPU_UNIT_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../unit/ps_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/ps_allocation_test.cc)
add_test(NAME ps_real_process COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/ps_real_process_test.sh
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(ps_real_process PROPERTIES LABELS system RUN_SERIAL TRUE)
# Pod names from the kubelet's pod-resources API: HTTP/2, HPACK, protobuf and the matching
# rule in unit tests; a real gRPC server (python3-grpcio, messages protoc compiles from the
# vendored api.proto) on a unix socket inside a fixture root, healthy and failing.
list(APPEND ANYGPU_UNIT_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../unit/ps_grpc_test.cc)
add_test(NAME ps_pod_resources
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/ps_pod_resources_test.py
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts
         ${CMAKE_CURRENT_LIST_DIR}/../e2e/podresources $<TARGET_FILE:mock_nvml_health>)

# `anygpu top`'s process pane: layout (unit) and the non-terminal output of a fixture /proc,
# with NVML's process list from the mock library through the worker.
list(APPEND ANYGPU_UNIT_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../unit/top_process_pane_test.cc)
add_test(NAME top_processes
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/top_processes_test.py
                 $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts/mi300x-8x
                 ${CMAKE_CURRENT_LIST_DIR}/../hosts/h100-8x $<TARGET_FILE:mock_nvml_health>)
set_tests_properties(top_processes PROPERTIES TIMEOUT 60)
