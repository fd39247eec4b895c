# Device selection (`anygpu select`): accelerator-config.yaml, the policy, the renderers.
set(ANYGPU_SELECT_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/accelerator_config.cc
  ${CMAKE_CURRENT_LIST_DIR}/select.cc
  ${CMAKE_CURRENT_LIST_DIR}/units.cc
  ${CMAKE_CURRENT_LIST_DIR}/occupancy.cc
  ${CMAKE_CURRENT_LIST_DIR}/render.cc)
set(ANYGPU_SELECT_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/select_cmd.cc
)
