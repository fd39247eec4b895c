# Reading images: tar members and their bounds, gzip, fat binaries and offload bundles.
list(APPEND ANYGPU_UNIT_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../unit/image_reader_test.cc)
