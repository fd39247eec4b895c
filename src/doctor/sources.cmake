# `anygpu doctor`: findings, the ELF reader and the loader's search order.
set(ANYGPU_DOCTOR_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/elf.cc
  ${CMAKE_CURRENT_LIST_DIR}/loader.cc
  ${CMAKE_CURRENT_LIST_DIR}/check_driver.cc
  ${CMAKE_CURRENT_LIST_DIR}/check_driver_userspace.cc
  ${CMAKE_CURRENT_LIST_DIR}/check_device_access.cc
  ${CMAKE_CURRENT_LIST_DIR}/check_containers.cc
  ${CMAKE_CURRENT_LIST_DIR}/check_container_driver.cc
  ${CMAKE_CURRENT_LIST_DIR}/check_kernel.cc
  ${CMAKE_CURRENT_LIST_DIR}/check_open_files.cc
  ${CMAKE_CURRENT_LIST_DIR}/check_libraries.cc
  ${CMAKE_CURRENT_LIST_DIR}/doctor.cc
)
set(ANYGPU_DOCTOR_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/doctor_cmd.cc
)
