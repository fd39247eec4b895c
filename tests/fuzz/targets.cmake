# The fuzz targets, shared by tests/fuzz (libFuzzer build) and tests/fuzz/replay (every build).
# Each area names its own in tests/fuzz/<area>_targets.cmake (ANYGPU_<AREA>_FUZZ_TARGETS);
# each name has a source <name>_fuzz.cc and a seed corpus in corpus/<name>/.
set(ANYGPU_FUZZ_TARGETS)
file(GLOB _anygpu_fuzz_files CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*_targets.cmake)
anygpu_check_area_files("fuzz target file" "_targets\\.cmake" ${_anygpu_fuzz_files})
foreach(_file ${_anygpu_fuzz_files})
  include(${_file})
  get_filename_component(_name ${_file} NAME)
  string(REGEX REPLACE "_targets\\.cmake$" "" _area ${_name})
  string(TOUPPER ${_area} _AREA)
  list(APPEND ANYGPU_FUZZ_TARGETS ${ANYGPU_${_AREA}_FUZZ_TARGETS})
endforeach()
