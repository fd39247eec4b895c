# `anygpu image check`: an image read by src/image/ judged against this host's devices, with
# the framework-build judge of `check` and `doctor` (src/wheel/framework_check.h).
set(ANYGPU_IMAGEFIT_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/compat_fit.cc
  ${CMAKE_CURRENT_LIST_DIR}/image_fit.cc
  ${CMAKE_CURRENT_LIST_DIR}/image_fit_render.cc
  ${CMAKE_CURRENT_LIST_DIR}/image_frameworks.cc
  ${CMAKE_CURRENT_LIST_DIR}/require_cuda.cc
)
set(ANYGPU_IMAGEFIT_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/image_cmd.cc
)
