# The version the CLI reports: PROJECT_VERSION plus the git description of the checkout,
# taken at configure time. A release tarball has no .git: ANYGPU_GIT_DESCRIPTION may be passed
# (-DANYGPU_GIT_DESCRIPTION=…, e.g. by a packager), or the version stands alone.
# ANYGPU_SOVERSION is the C ABI's major version: bump it when include/anygpu.h breaks callers.
set(ANYGPU_SOVERSION 0)
if(NOT DEFINED ANYGPU_GIT_DESCRIPTION)
  set(_described "")
  find_package(Git QUIET)
  if(GIT_FOUND AND EXISTS ${CMAKE_SOURCE_DIR}/.git)
    execute_process(
      COMMAND ${GIT_EXECUTABLE} describe --tags --always --dirty
      WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
      OUTPUT_VARIABLE _described OUTPUT_STRIP_TRAILING_WHITESPACE
      ERROR_QUIET RESULT_VARIABLE _git_rc)
    if(NOT _git_rc EQUAL 0)
      set(_described "")
    endif()
  endif()
  set(ANYGPU_GIT_DESCRIPTION "${_described}")
endif()
if(NOT ANYGPU_GIT_DESCRIPTION MATCHES "^[0-9A-Za-z.+~-]*$")
  message(FATAL_ERROR "ANYGPU_GIT_DESCRIPTION: only [0-9A-Za-z.+~-] allowed, got '${ANYGPU_GIT_DESCRIPTION}'")
endif()
message(STATUS "anygpu ${PROJECT_VERSION} (${ANYGPU_GIT_DESCRIPTION})")
