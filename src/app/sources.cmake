# Compositions above the areas they join: select_on_host() loads the accelerator config, probes,
# checks the runtime contracts and selects, for `select`, `run` and the C ABI; `run`'s
# selection under per-device locks; the occupancy (free memory, utilisation, holders) the
# occupancy criteria judge, from one metrics sample and one process scan; `run --container`'s
# judgement of the image it starts.
set(ANYGPU_APP_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/on_host.cc
  ${CMAKE_CURRENT_LIST_DIR}/locked_select.cc
  ${CMAKE_CURRENT_LIST_DIR}/occupancy.cc
  ${CMAKE_CURRENT_LIST_DIR}/image_gate.cc
)
