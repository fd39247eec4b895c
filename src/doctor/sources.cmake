# `anygpu doctor`: findings, the ELF reader and the loader's search order.
set(ANYGPU_DOCTOR_SOURCES
)
set(ANYGPU_DOCTOR_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/doctor_cmd.cc
)
