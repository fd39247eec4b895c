# `anygpu gather`: replays equal to their source on every fixture host, the manifest, --redact
# and its identifier rules, link loops.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/gather_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/gather_bundle_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/gather_redact_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/gather_replay_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/gather_test_support.cc
)
