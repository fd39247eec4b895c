# Runs at install time (cmake --install, `make install`, CPack), when the prefix is known:
# installs what depends on it. Set by cmake/install.cmake: ANYGPU_SOURCE_DIR, ANYGPU_BINARY_DIR,
# ANYGPU_PYTHON, ANYGPU_PYTHON_FALLBACK, ANYGPU_INSTALL_PYTHONDIR, ANYGPU_INSTALL_SYSTEMDUNITDIR, ANYGPU_INSTALL_BINDIR,
# ANYGPU_INSTALL_LIBDIR, ANYGPU_SONAME. file(INSTALL) puts $DESTDIR in front of each destination.

# DIR beneath the prefix, or DIR itself when absolute.
function(anygpu_beneath_prefix out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_INSTALL_PREFIX}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

# --- where the Python package goes -------------------------------------------------------------
if(ANYGPU_INSTALL_PYTHONDIR)
  anygpu_beneath_prefix(_site "${ANYGPU_INSTALL_PYTHONDIR}")
  message(STATUS "anygpu: Python package into ${_site} (ANYGPU_INSTALL_PYTHONDIR)")
else()
  include("${CMAKE_CURRENT_LIST_DIR}/python_site_dir.cmake")
  anygpu_python_site_dir("${CMAKE_INSTALL_PREFIX}" "${ANYGPU_PYTHON}" "${ANYGPU_PYTHON_FALLBACK}"
                         _site _state _python)
  if(NOT _state STREQUAL "on-path")
    message(WARNING "anygpu: ${_site} is not on ${_python}'s sys.path: `import anygpu` needs "
                    "PYTHONPATH=${_site}; or install into that interpreter's prefix, or configure "
                    "with -DANYGPU_PYTHON=/path/to/the/python3 that will import it")
  endif()
  message(STATUS "anygpu: Python package into ${_site} (${_state} of ${_python})")
endif()

file(INSTALL DESTINATION "${_site}" TYPE DIRECTORY
     FILES "${ANYGPU_SOURCE_DIR}/python/anygpu"
     FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)

# The package finds libanygpu through this note first: relative (the tree may be moved or
# staged with DESTDIR), then the absolute path beneath the prefix. ld.so.cache may not know the
# library yet (ldconfig has not run after `make install`), or a venv's lib/ is not in it at all.
anygpu_beneath_prefix(_libdir "${ANYGPU_INSTALL_LIBDIR}")
set(_library "${_libdir}/${ANYGPU_SONAME}")
file(RELATIVE_PATH _relative "${_site}/anygpu" "${_library}")
set(_note "${ANYGPU_BINARY_DIR}/python-install/_installed.py")
file(WRITE "${_note}" "\
# Written by `cmake --install` (cmake/install_prefixed.cmake): where this installation put
# libanygpu, relative to this package's directory and beneath the install prefix.
PREFIX = \"${CMAKE_INSTALL_PREFIX}\"
LIBRARY_RELATIVE = \"${_relative}\"
LIBRARY = \"${_library}\"
")
file(INSTALL DESTINATION "${_site}/anygpu" TYPE FILE FILES "${_note}")

# --- the exporter's unit: ExecStart names the binary beneath this prefix -------------------
set(_unit_in "${ANYGPU_SOURCE_DIR}/deploy/systemd/anygpu-exporter.service")
file(READ "${_unit_in}" _unit)
string(FIND "${_unit}" "@ANYGPU_BINDIR@/anygpu" _at)
if(_at LESS 0)
  message(FATAL_ERROR "${_unit_in}: ExecStart lacks @ANYGPU_BINDIR@/anygpu")
endif()
anygpu_beneath_prefix(_bindir "${ANYGPU_INSTALL_BINDIR}")
# Only the placeholder is replaced: the unit's other '@' (SystemCallFilter=@system-service) stay.
string(REPLACE "@ANYGPU_BINDIR@" "${_bindir}" _unit "${_unit}")
set(_unit_out "${ANYGPU_BINARY_DIR}/deploy/anygpu-exporter.service")
file(WRITE "${_unit_out}" "${_unit}")
anygpu_beneath_prefix(_unitdir "${ANYGPU_INSTALL_SYSTEMDUNITDIR}")
file(INSTALL DESTINATION "${_unitdir}" TYPE FILE FILES "${_unit_out}")
