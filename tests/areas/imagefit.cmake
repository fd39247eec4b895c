# `anygpu image check`: NVIDIA_REQUIRE_CUDA, and images built in the test (docker-archive, OCI
# layout directory and tar) from small root file systems with real ELF libraries, judged on
# fixture hosts; every class of bad input exits 2 naming the layer and member.
list(APPEND ANYGPU_UNIT_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../unit/imagefit_require_test.cc
     ${CMAKE_CURRENT_LIST_DIR}/../unit/imagefit_arch_test.cc)
add_test(NAME image_check_cli
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../image/image_check_test.py
                 $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/..)
set_tests_properties(image_check_cli PROPERTIES TIMEOUT 300)
# The same on archives real Podman writes (podman import, then save as docker-archive,
# oci-archive and oci-dir): the id Podman reports, the code objects, the verdicts.
add_test(NAME image_check_podman
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/../image/image_podman_test.sh $<TARGET_FILE:anygpu>
                 ${CMAKE_CURRENT_LIST_DIR}/..)
set_tests_properties(image_check_podman PROPERTIES LABELS system RESOURCE_LOCK podman TIMEOUT 300)
# The fat binary reader on libraries NVIDIA's nvcc writes (generic, PTX and sm_90a targets),
# where a CUDA toolkit is installed; without one the test does not exist (it is not skipped).
file(GLOB _anygpu_cuda_bins /usr/local/cuda/bin /usr/local/cuda-*/bin)
find_program(ANYGPU_NVCC nvcc PATHS ${_anygpu_cuda_bins} NO_DEFAULT_PATH)
if(ANYGPU_NVCC)
  add_test(NAME image_check_nvcc
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/../image/nvcc_fatbin_test.sh $<TARGET_FILE:anygpu>
                   ${CMAKE_CURRENT_LIST_DIR}/.. ${ANYGPU_NVCC})
  set_tests_properties(image_check_nvcc PROPERTIES LABELS system TIMEOUT 300)
endif()
