# The Python environment a framework is judged in: the interpreter's sys.path, asked once, and
# the distributions installed there, read from their metadata files (nothing is imported).
set(ANYGPU_PYENV_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/python_env.cc
)
