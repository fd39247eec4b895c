# Install rules and the Debian packages (CPack). `cmake --install BUILD --prefix P` (or
# `make install PREFIX=P DESTDIR=D`) lays out:
#   bin/anygpu                                   the CLI
#   LIBDIR/libanygpu.so.0 (+ .so.0.X.Y, .so)     the C ABI, with its SONAME
#   include/anygpu.h, LIBDIR/pkgconfig/anygpu.pc, LIBDIR/cmake/anygpu/   for C/C++ callers
#   SITE/anygpu/                                 the Python package, SITE asked of the interpreter
#   ANYGPU_INSTALL_SYSTEMDUNITDIR/anygpu-exporter.service (lib/systemd/system)
#   share/anygpu/{prometheus,grafana,kubernetes}/, share/anygpu/wheels.yaml
#   share/man/man1/, bash/zsh/fish completions, share/doc/anygpu/
# Components: cli (the anygpu package), lib (libanygpu0), dev (libanygpu-dev).
# What depends on the prefix (the package's directory, its note of where the library is, the
# unit's ExecStart) is decided at install time by cmake/install_prefixed.cmake: `cmake --install
# --prefix` and CPack (/usr) choose the prefix after configuring.

include(CMakePackageConfigHelpers)

# Relative directories follow the prefix given at install time (cmake --install --prefix).
# systemd reads /usr/lib/systemd/system; Debian 12 has merged /usr, so /lib/systemd/system is
# the same directory.
set(ANYGPU_INSTALL_SYSTEMDUNITDIR lib/systemd/system CACHE STRING
    "Directory for the exporter's systemd unit (relative: beneath the prefix)")

# The Python package goes where the interpreter that will import it looks beneath the prefix
# (cmake/python_site_dir.py): /usr/lib/python3/dist-packages for Debian's python3 and /usr,
# /usr/local/lib/python3.X/dist-packages for /usr/local, PREFIX/lib/python3.X/site-packages for
# a venv and other distributions. The interpreter: ANYGPU_PYTHON when set, else the prefix's own
# bin/python3 (a venv, a pyenv or conda prefix, /usr), else the distribution's /usr/bin/python3,
# else python3 on PATH. Decided again at install time, for the prefix given then.
set(ANYGPU_PYTHON "" CACHE FILEPATH
    "Interpreter the installed Python package is for (empty: the prefix's own, else /usr/bin/python3)")
if(EXISTS /usr/bin/python3)
  set(ANYGPU_PYTHON_FALLBACK /usr/bin/python3)
else()
  find_package(Python3 COMPONENTS Interpreter)
  set(ANYGPU_PYTHON_FALLBACK "${Python3_EXECUTABLE}")
endif()
set(_pythondir_help
    "Directory for the Python package (relative: beneath the prefix); empty: asked of the interpreter")
# Build trees configured before the directory was computed cached the old fixed default.
get_property(_old_help CACHE ANYGPU_INSTALL_PYTHONDIR PROPERTY HELPSTRING)
if(_old_help MATCHES "^Directory the Python package is installed into"
   AND ANYGPU_INSTALL_PYTHONDIR STREQUAL "lib/python3/dist-packages")
  unset(ANYGPU_INSTALL_PYTHONDIR CACHE)
endif()
set(ANYGPU_INSTALL_PYTHONDIR "" CACHE STRING "${_pythondir_help}")
if(NOT ANYGPU_INSTALL_PYTHONDIR)
  # Shown now for the configured prefix; asked again at install time for the prefix given then.
  include(cmake/python_site_dir.cmake)
  anygpu_python_site_dir("${CMAKE_INSTALL_PREFIX}" "${ANYGPU_PYTHON}" "${ANYGPU_PYTHON_FALLBACK}"
                         _site _state _python)
  message(STATUS "anygpu: Python package for prefix ${CMAKE_INSTALL_PREFIX}: ${_site} "
                 "(${_state} of ${_python})")
endif()

# --- the CLI and its files (package anygpu) -------------------------------------------------
install(TARGETS anygpu RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(FILES deploy/prometheus/anygpu-rules.yml deploy/prometheus/anygpu-rules.test.yml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/anygpu/prometheus COMPONENT cli)
install(FILES deploy/grafana/anygpu-dashboard.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/anygpu/grafana COMPONENT cli)
install(FILES deploy/kubernetes/anygpu-exporter.yaml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/anygpu/kubernetes COMPONENT cli)
# The same table the binary carries, as a starting point for `anygpu wheel --data FILE`.
install(FILES data/wheels.yaml DESTINATION ${CMAKE_INSTALL_DATADIR}/anygpu COMPONENT cli)
# The registry the binary carries, as a starting point for ANYGPU_REGISTRY=DIR.
install(FILES data/vendors.yaml data/devices.yaml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/anygpu/registry COMPONENT cli)
# The Python package, its note of the library's place, and the unit: beneath the install prefix.
install(CODE "
  set(ANYGPU_SOURCE_DIR \"${CMAKE_SOURCE_DIR}\")
  set(ANYGPU_BINARY_DIR \"${CMAKE_BINARY_DIR}\")
  set(ANYGPU_PYTHON \"${ANYGPU_PYTHON}\")
  set(ANYGPU_PYTHON_FALLBACK \"${ANYGPU_PYTHON_FALLBACK}\")
  set(ANYGPU_INSTALL_PYTHONDIR \"${ANYGPU_INSTALL_PYTHONDIR}\")
  set(ANYGPU_INSTALL_SYSTEMDUNITDIR \"${ANYGPU_INSTALL_SYSTEMDUNITDIR}\")
  set(ANYGPU_INSTALL_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
  set(ANYGPU_INSTALL_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(ANYGPU_SONAME \"libanygpu.so.${ANYGPU_SOVERSION}\")
  include(\"${CMAKE_SOURCE_DIR}/cmake/install_prefixed.cmake\")
  " COMPONENT cli)
install(FILES README.md CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT cli)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT cli
        FILES_MATCHING PATTERN "*.md")
if(ANYGPU_CLI_DOCS)
  install(DIRECTORY ${ANYGPU_CLI_DOCS_DIR}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
          COMPONENT cli FILES_MATCHING PATTERN "*.1.gz")
  install(FILES ${ANYGPU_CLI_DOCS_DIR}/completions/anygpu.bash RENAME anygpu
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT cli)
  install(FILES ${ANYGPU_CLI_DOCS_DIR}/completions/_anygpu
          DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions COMPONENT cli)
  install(FILES ${ANYGPU_CLI_DOCS_DIR}/completions/anygpu.fish
          DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d COMPONENT cli)
endif()

# --- the C ABI (libanygpu0) and what builds against it (libanygpu-dev) -----------------------
set_target_properties(anygpu_shared PROPERTIES EXPORT_NAME anygpu)
install(TARGETS anygpu_shared EXPORT anygpuTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev)
install(FILES include/anygpu.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
target_include_directories(anygpu_shared INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

# The prefix is known only when installing (cmake --install --prefix, CPack's /usr): the .pc
# file is written then, from the prefix of that installation.
install(CODE "
  set(ANYGPU_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(CMAKE_INSTALL_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(CMAKE_INSTALL_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  configure_file(\"${CMAKE_SOURCE_DIR}/cmake/anygpu.pc.in\" \"${CMAKE_BINARY_DIR}/pc/anygpu.pc\" @ONLY)
  " COMPONENT dev)
install(FILES ${CMAKE_BINARY_DIR}/pc/anygpu.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT dev)

set(_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/anygpu)
install(EXPORT anygpuTargets NAMESPACE anygpu:: FILE anygpuTargets.cmake
        DESTINATION ${_cmakedir} COMPONENT dev)
configure_package_config_file(cmake/anygpuConfig.cmake.in
  ${CMAKE_BINARY_DIR}/anygpuConfig.cmake INSTALL_DESTINATION ${_cmakedir})
# 0.x: every minor release may change the ABI, so only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/anygpuConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/anygpuConfig.cmake ${CMAKE_BINARY_DIR}/anygpuConfigVersion.cmake
        DESTINATION ${_cmakedir} COMPONENT dev)

include(cmake/debian.cmake)
