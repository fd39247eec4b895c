# libanygpu.so: the C ABI (include/anygpu.h), exported through anygpu.map only.
set(ANYGPU_CAPI_SHARED_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/anygpu_c.cc
  ${CMAKE_CURRENT_LIST_DIR}/env_json.cc
)
