# The Python package (python/anygpu) against the libanygpu.so and CLI of this build, with
# Debian's real torch. LABELS system: it starts processes (DDP, anygpu run) and runs once.
add_test(NAME python_pytest
         COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider ${CMAKE_SOURCE_DIR}/tests/python)
set_tests_properties(python_pytest PROPERTIES
  ENVIRONMENT "PYTHONPATH=${CMAKE_SOURCE_DIR}/python;ANYGPU_LIBRARY=$<TARGET_FILE:anygpu_shared>;ANYGPU_BINARY=$<TARGET_FILE:anygpu>;PYTHONDONTWRITEBYTECODE=1"
  LABELS system TIMEOUT 600)
