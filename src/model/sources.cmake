# The device model every command shares: Inventory, Device, architectures.
set(ANYGPU_MODEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/inventory.cc
  ${CMAKE_CURRENT_LIST_DIR}/arch.cc
  ${CMAKE_CURRENT_LIST_DIR}/library_status.cc
)
