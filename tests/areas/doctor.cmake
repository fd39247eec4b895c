# `anygpu doctor`: the ELF reader, ld.so.cache, the loader's search order and shadowing (real
# shared objects built by gcc at test time), the host checks on fixture copies, and the CLI.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/doctor_elf_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/doctor_ld_cache_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/doctor_shadowing_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/doctor_checks_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/doctor_cli_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/doctor_container_driver_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/doctor_driver_userspace_test.cc
)
