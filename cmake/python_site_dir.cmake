# anygpu_python_site_dir(PREFIX PYTHON FALLBACK out_dir out_state out_python): the directory the
# Python package goes into beneath PREFIX, whether the interpreter imports from it
# ("on-path"/"off-path"), and which interpreter was asked: PYTHON when set, else PREFIX's own
# bin/python3 when it has one, else FALLBACK. Used at configure and at install time.
set(ANYGPU_PYTHON_SITE_DIR_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/python_site_dir.py")
function(anygpu_python_site_dir prefix python fallback out_dir out_state out_python)
  if(NOT python)
    if(EXISTS "${prefix}/bin/python3")
      set(python "${prefix}/bin/python3")
    else()
      set(python "${fallback}")
    endif()
  endif()
  if(NOT python)
    message(FATAL_ERROR "anygpu: no python3 found: set ANYGPU_PYTHON to the interpreter that "
                        "will import the package, or ANYGPU_INSTALL_PYTHONDIR to its directory")
  endif()
  execute_process(
    COMMAND "${python}" -E -s "${ANYGPU_PYTHON_SITE_DIR_SCRIPT}" "${prefix}"
    OUTPUT_VARIABLE answer ERROR_VARIABLE err RESULT_VARIABLE rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "anygpu: ${python} could not name its site directory: ${err}")
  endif()
  string(REPLACE "\n" ";" answer "${answer}")
  list(GET answer 0 dir)
  list(GET answer 1 state)
  set(${out_dir} "${dir}" PARENT_SCOPE)
  set(${out_state} "${state}" PARENT_SCOPE)
  set(${out_python} "${python}" PARENT_SCOPE)
endfunction()
