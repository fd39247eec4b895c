# libanygpu.so: the C ABI and its struct layout.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/capi_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/capi_environment_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/abi_layout_test.cc
)

# fork() while 32 threads make their first C ABI calls: every child answers (a one-time
# initialisation held by a thread the child does not have would leave it waiting forever), with
# the built-in registry and with one ANYGPU_REGISTRY names. And the class behind it: the library
# holds no one-time initialisation guard at all.
# Not under the sanitizers: GCC 12's AddressSanitizer runtime takes its allocator's locks
# without fork handlers, so a child forked while another thread allocates can wait on a lock
# no thread of it holds (the hung child waits in SizeClassAllocator64::GetFromAllocator under
# operator new: a runtime deadlock, not the library's); the plain build runs it.
if(NOT ANYGPU_SANITIZE)
  add_executable(capi_fork_during_first_calls ${CMAKE_CURRENT_LIST_DIR}/../capi/fork_during_first_calls.c)
  target_include_directories(capi_fork_during_first_calls PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_link_libraries(capi_fork_during_first_calls PRIVATE anygpu_shared pthread)
  add_test(NAME capi_fork_during_first_calls
    COMMAND capi_fork_during_first_calls
            "{\"root\": \"${CMAKE_SOURCE_DIR}/tests/hosts/h100-8x\", \"no_libs\": true}" 5)
  add_test(NAME capi_fork_during_first_calls_registry
    COMMAND capi_fork_during_first_calls
            "{\"root\": \"${CMAKE_SOURCE_DIR}/tests/registry/acme-host\", \"no_libs\": true}" 5)
  set_tests_properties(capi_fork_during_first_calls_registry PROPERTIES
    ENVIRONMENT "ANYGPU_REGISTRY=${CMAKE_SOURCE_DIR}/tests/registry/acme")
  set_tests_properties(capi_fork_during_first_calls capi_fork_during_first_calls_registry
    PROPERTIES TIMEOUT 240)
endif()
add_test(NAME capi_no_init_guards
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../capi/no_init_guards.py
          $<TARGET_FILE:anygpu_shared>)
