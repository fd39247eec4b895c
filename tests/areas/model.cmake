# One vocabulary: arches, driver versions, usable devices and exit codes.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/vocabulary_test.cc
)
