# One way to register code and tests. Every folder of src/ is an area, and an area is found by
# its folder, not by a list kept elsewhere:
#   src/<area>/sources.cmake          ANYGPU_<AREA>_SOURCES           the core (anygpu_core)
#                                     ANYGPU_<AREA>_CLI_SOURCES       its commands (src/cli/…)
#                                     ANYGPU_<AREA>_BOOTSTRAP_SOURCES what the registry compiler
#                                                                     needs (anygpu_yaml)
#                                     ANYGPU_<AREA>_SHARED_SOURCES    libanygpu.so
#   tests/areas/<area>.cmake          its unit tests, mock libraries and add_test() calls
#   tests/fuzz/<area>_targets.cmake   its fuzz targets (ANYGPU_<AREA>_FUZZ_TARGETS)
# A folder of src/ without sources.cmake, or a test or fuzz file naming no area, stops the
# configure step: nothing is silently left out of the build.
get_filename_component(ANYGPU_SRC_DIR ${CMAKE_CURRENT_LIST_DIR}/../src ABSOLUTE)
file(GLOB _anygpu_src_entries LIST_DIRECTORIES true CONFIGURE_DEPENDS RELATIVE ${ANYGPU_SRC_DIR}
     ${ANYGPU_SRC_DIR}/*)
set(ANYGPU_AREAS)
foreach(entry ${_anygpu_src_entries})
  if(IS_DIRECTORY ${ANYGPU_SRC_DIR}/${entry})
    if(NOT EXISTS ${ANYGPU_SRC_DIR}/${entry}/sources.cmake)
      message(FATAL_ERROR "src/${entry}/ has no sources.cmake: every folder of src/ lists its files")
    endif()
    list(APPEND ANYGPU_AREAS ${entry})
  endif()
endforeach()
# Areas with tests but no folder in src/: the Python package (python/) and the install rules,
# packages, wheel and image (cmake/install.cmake, tools/).
set(ANYGPU_TEST_ONLY_AREAS python packaging)

# Includes every src/<area>/sources.cmake (in the caller's scope: they may generate files) and
# gathers each kind of list into ANYGPU_ALL_<KIND>.
macro(anygpu_collect_sources)
  foreach(_kind SOURCES CLI_SOURCES BOOTSTRAP_SOURCES SHARED_SOURCES)
    set(ANYGPU_ALL_${_kind})
  endforeach()
  foreach(_area ${ANYGPU_AREAS})
    include(${ANYGPU_SRC_DIR}/${_area}/sources.cmake)
    string(TOUPPER ${_area} _AREA)
    foreach(_kind SOURCES CLI_SOURCES BOOTSTRAP_SOURCES SHARED_SOURCES)
      list(APPEND ANYGPU_ALL_${_kind} ${ANYGPU_${_AREA}_${_kind}})
    endforeach()
  endforeach()
endmacro()

# FILES (tests/areas/*.cmake or tests/fuzz/*_targets.cmake) must each belong to an area.
function(anygpu_check_area_files what suffix)
  foreach(file ${ARGN})
    get_filename_component(name ${file} NAME)
    string(REGEX REPLACE "${suffix}$" "" area ${name})
    if(NOT area IN_LIST ANYGPU_AREAS AND NOT area IN_LIST ANYGPU_TEST_ONLY_AREAS)
      message(FATAL_ERROR "${what} ${file} names no area (no src/${area}/, not a test-only area)")
    endif()
  endforeach()
endfunction()
