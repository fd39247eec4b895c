# `anygpu gather`: replays equal to their source on every fixture host, the manifest, --redact
# and its identifier rules, link loops.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/gather_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/gather_bundle_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/gather_redact_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/gather_replay_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/gather_test_support.cc
)
# The same through the CLI: detect, doctor and health on each bundle equal the source's, field by
# field; the manifest and --redact.
add_test(NAME gather_replay_cli
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/gather_replay_test.py
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(gather_replay_cli PROPERTIES TIMEOUT 300)
# A real host captured by `anygpu gather` (one H200 in a VM, its driver user space in
# /usr/local/nvidia/lib64): every command answers from the capture what that host showed.
add_test(NAME captured_h200_cli
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/captured_h200_test.py
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../captures/h200-vm)
set_tests_properties(captured_h200_cli PROPERTIES TIMEOUT 120)
