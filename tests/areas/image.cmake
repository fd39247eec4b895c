# Reading images: tar members and their bounds, gzip, fat binaries and offload bundles, the
# forward-compatibility note of cuda-compat libraries.
list(APPEND ANYGPU_UNIT_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../unit/image_reader_test.cc
     ${CMAKE_CURRENT_LIST_DIR}/../unit/image_compat_note_test.cc
     ${CMAKE_CURRENT_LIST_DIR}/../unit/image_facts_cache_test.cc)
# The fat binary reader on PyTorch's CUDA wheel from PyPI (the current-torch venv `make test`
# prepares), compared with torch._C._cuda_getArchFlags() and torch.cuda.get_arch_list() of the
# same torch; no GPU needed. Skipped (exit 77, reason printed) only where the venv is absent.
add_executable(image_code_objects_dump ${CMAKE_CURRENT_LIST_DIR}/../image/code_objects_dump.cc)
# yaml-cpp too: in the unity trees a batch the reader's code shares with YAML readers is linked whole.
target_link_libraries(image_code_objects_dump PRIVATE anygpu_core yaml-cpp)
add_test(NAME image_real_torch_wheel
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../image/real_wheel_test.py
                 $<TARGET_FILE:image_code_objects_dump> ${CMAKE_SOURCE_DIR})
set_tests_properties(image_real_torch_wheel PROPERTIES LABELS system SKIP_RETURN_CODE 77
                     TIMEOUT 900)
