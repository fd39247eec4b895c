# The vendor management libraries, one folder each: its ABI declarations (abi.h), the entry points
# it resolves (api.h), and what it serves, each run only inside a library worker: probe.cc
# (discovery), health.cc (health facts), sampler.cc (metrics). <library>.h declares them, and
# one row of the table in apis.cc hands them to their callers. The folders are listed here:
# cmake/areas.cmake finds areas by the top folders of src/ only.
set(ANYGPU_VENDORLIB_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/apis.cc
  ${CMAKE_CURRENT_LIST_DIR}/dcmi/api.cc
  ${CMAKE_CURRENT_LIST_DIR}/dcmi/health.cc
  ${CMAKE_CURRENT_LIST_DIR}/dcmi/probe.cc
  ${CMAKE_CURRENT_LIST_DIR}/dcmi/sampler.cc
  ${CMAKE_CURRENT_LIST_DIR}/level_zero/api.cc
  ${CMAKE_CURRENT_LIST_DIR}/level_zero/fabric.cc
  ${CMAKE_CURRENT_LIST_DIR}/level_zero/health.cc
  ${CMAKE_CURRENT_LIST_DIR}/level_zero/probe.cc
  ${CMAKE_CURRENT_LIST_DIR}/level_zero/sampler.cc
  ${CMAKE_CURRENT_LIST_DIR}/nvml/health.cc
  ${CMAKE_CURRENT_LIST_DIR}/nvml/probe.cc
  ${CMAKE_CURRENT_LIST_DIR}/nvml/sampler.cc
  ${CMAKE_CURRENT_LIST_DIR}/rocm_smi/probe.cc
)
