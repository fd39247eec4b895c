# libanygpu.so: the C ABI and its struct layout.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/capi_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/capi_environment_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/abi_layout_test.cc
)
