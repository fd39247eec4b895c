# `detect`'s two outputs: the anygpu.inventory/v1 document and the table.
set(ANYGPU_RENDER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/inventory_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/inventory_text.cc
)
