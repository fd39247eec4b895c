# `anygpu wheel` and the installed-torch-build findings.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/wheel_data_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/wheel_choose_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/wheel_framework_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/wheel_recommend_test.cc)
add_test(NAME e2e_wheel COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/wheel_cli_test.sh
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
# scripts/refresh_wheels.py over saved pages: PyTorch's release matrix, PyPI's simple page, wheel
# METADATA and an installed build's arch list (tests/contract/wheels_refresh/SOURCES.md).
add_test(NAME e2e_wheels_refresh COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/wheels_refresh_test.sh
         ${CMAKE_SOURCE_DIR} $<TARGET_FILE:anygpu>)
# ANYGPU_WHEELS through the C ABI: taken when valid, every call refused naming it when not.
# Plain build only: the sanitized library cannot be loaded into an uninstrumented python3
# (the sanitizer runtime must come first), as for the fork tests in capi.cmake.
if(NOT ANYGPU_SANITIZE)
  add_test(NAME wheels_env_capi
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/wheels_env_capi_test.py
            $<TARGET_FILE:anygpu_shared> ${CMAKE_SOURCE_DIR})
endif()
