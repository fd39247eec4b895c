# `anygpu gather`.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/gather_test.cc
)
