# The fuzz targets, shared by tests/fuzz (libFuzzer build) and tests/fuzz/replay (every build).
# Each name has a source <name>_fuzz.cc and a seed corpus in corpus/<name>/.
set(ANYGPU_FUZZ_TARGETS
  cpulist link nvidia_information kfd_properties os_release pci_ids pci_address versions
  registry_yaml host)
# The contract (`check`) and selection (`select`) parsers add theirs.
include(${CMAKE_CURRENT_LIST_DIR}/contract_targets.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/select_targets.cmake)
list(APPEND ANYGPU_FUZZ_TARGETS ${ANYGPU_CONTRACT_FUZZ_TARGETS} ${ANYGPU_SELECT_FUZZ_TARGETS})
# Every other capability: tests/fuzz/<area>_targets.cmake sets ANYGPU_<AREA>_FUZZ_TARGETS.
foreach(area worker launch cluster container cdi metrics exporter doctor wheel hostprep health ps)
  include(${CMAKE_CURRENT_LIST_DIR}/${area}_targets.cmake OPTIONAL)
  string(TOUPPER ${area} AREA)
  list(APPEND ANYGPU_FUZZ_TARGETS ${ANYGPU_${AREA}_FUZZ_TARGETS})
endforeach()
