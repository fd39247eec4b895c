# The vendor registry and its compiler's checks.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/registry_facts_not_in_code_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/registry_test.cc
)

# The made-up vendor (tests/registry/acme) through ANYGPU_REGISTRY: every command and the
# Python package through the C ABI, and a broken registry refused everywhere. LABELS system:
# it loads libanygpu.so into Debian's python3, which a sanitizer build cannot be.
add_test(NAME registry_override
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/registry_override_test.py
          $<TARGET_FILE:anygpu> $<TARGET_FILE:anygpu_shared> ${CMAKE_SOURCE_DIR}/python
          ${CMAKE_SOURCE_DIR}/tests/registry/acme ${CMAKE_SOURCE_DIR}/tests/registry/acme-host)
set_tests_properties(registry_override PROPERTIES LABELS system TIMEOUT 180)
