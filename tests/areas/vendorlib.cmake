# The vendor libraries' table of APIs. Each library's probe, health reader and sampler is tested
# through the production load path with mock libraries by the area that uses it (probe, health,
# metrics, worker).
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/vendorlib_apis_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/ze_fabric_test.cc
)
# Level Zero's fabric extension (Xe Link) for the intel-max-arc fixture's Max cards.
list(APPEND ANYGPU_MOCKS ze_fabric)
