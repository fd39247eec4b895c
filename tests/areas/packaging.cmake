# Shipping anygpu: install rules, man pages and completions, the Debian packages on a fresh
# Debian 12, the wheel in a fresh venv, the OCI image scraped by Prometheus. They test the
# artifacts users install, not memory safety: LABELS system keeps them out of the ASan run.
set(_pkg_tests ${CMAKE_CURRENT_LIST_DIR}/../packaging)
set(_pkg_hosts ${CMAKE_CURRENT_LIST_DIR}/../hosts)

if(ANYGPU_CLI_DOCS)
  add_test(NAME packaging_cli_docs
    COMMAND ${_pkg_tests}/cli_docs_test.sh $<TARGET_FILE:anygpu> ${ANYGPU_CLI_DOCS_DIR})
  set_tests_properties(packaging_cli_docs PROPERTIES LABELS system TIMEOUT 120)
endif()

add_test(NAME packaging_install
  COMMAND ${_pkg_tests}/install_test.sh ${CMAKE_BINARY_DIR} ${_pkg_hosts}/mi300x-8x)
set_tests_properties(packaging_install PROPERTIES LABELS system TIMEOUT 180)

# `make install` into a venv and into a staged /usr/local, imported by the interpreter that owns
# the prefix with nothing pointing it there (exit 77: no private mount namespace here).
foreach(_mode venv local)
  add_test(NAME packaging_install_${_mode}
    COMMAND ${_pkg_tests}/install_prefix_test.sh ${_mode} ${CMAKE_BINARY_DIR}
            ${_pkg_hosts}/h100-8x $<TARGET_FILE:mock_nvml_ok>)
  set_tests_properties(packaging_install_${_mode} PROPERTIES
    LABELS system TIMEOUT 180 SKIP_RETURN_CODE 77)
endforeach()

# The first run debootstraps Debian 12 into ~/.cache/anygpu (a few minutes); later runs reuse it.
add_test(NAME packaging_deb
  COMMAND ${_pkg_tests}/deb_test.sh ${CMAKE_BINARY_DIR} ${_pkg_hosts}/mi300x-8x)
set_tests_properties(packaging_deb PROPERTIES LABELS system TIMEOUT 900 RUN_SERIAL TRUE)

add_test(NAME packaging_wheel
  COMMAND /usr/bin/python3 ${_pkg_tests}/wheel_test.py ${CMAKE_SOURCE_DIR} $<TARGET_FILE:anygpu>
          $<TARGET_FILE:anygpu_shared> ${_pkg_hosts}/mi300x-8x)
set_tests_properties(packaging_wheel PROPERTIES LABELS system TIMEOUT 300)

# The image from the build's binary, and the Prometheus end-to-end test against it.
add_test(NAME packaging_image
  COMMAND ${_pkg_tests}/image_test.sh ${CMAKE_SOURCE_DIR} $<TARGET_FILE:anygpu>
          ${_pkg_hosts}/mi300x-8x ${CMAKE_SOURCE_DIR}/deploy/grafana/anygpu-dashboard.json)
set_tests_properties(packaging_image PROPERTIES LABELS system TIMEOUT 300)
