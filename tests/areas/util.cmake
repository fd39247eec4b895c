# Text, numbers and versions; the diagnostics sink.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/strings_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/cpulist_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/diagnostics_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/env_vars_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/file_trust_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/sha256_test.cc
)

# Files that steer anygpu changed by others (ANYGPU_REGISTRY refused, CDI specs warned about and
# not used), and FIFOs where files belong (registry, CDI spec, config, LD_LIBRARY_PATH library,
# sysfs attribute): docs/security.md. LABELS system: it loads libanygpu.so into Debian's
# python3, which a sanitizer build cannot be.
add_test(NAME untrusted_files
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/untrusted_files_test.py
          $<TARGET_FILE:anygpu> $<TARGET_FILE:anygpu_shared>
          ${CMAKE_SOURCE_DIR}/tests/registry/acme ${CMAKE_SOURCE_DIR}/tests/registry/acme-host
          ${CMAKE_SOURCE_DIR}/tests/hosts/h100-8x)
set_tests_properties(untrusted_files PROPERTIES LABELS system TIMEOUT 300)

# Every command under RLIMIT_NOFILE 4…: a failure or a word, never a silent partial answer; and
# host-init --apply on a read-only target (as root).
add_test(NAME resource_exhaustion
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/resource_exhaustion_test.py
          $<TARGET_FILE:anygpu> ${CMAKE_SOURCE_DIR}/tests/hosts/h100-8x)
set_tests_properties(resource_exhaustion PROPERTIES TIMEOUT 900)
