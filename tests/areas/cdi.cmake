# Container Device Interface (`anygpu cdi`): generation, reading, version rules, names.
list(APPEND ANYGPU_UNIT_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../unit/cdi_spec_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/cdi_judge_test.cc)
# Podman with the generated spec: `anygpu run --container` passes CDI names and the container
# sees exactly the selected devices' nodes (needs root: mknod, /etc/cdi).
add_test(NAME cdi_podman_e2e
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/cdi_podman_test.sh $<TARGET_FILE:anygpu>
                 ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(cdi_podman_e2e PROPERTIES LABELS system RESOURCE_LOCK podman TIMEOUT 300)
# Podman and anygpu agree on specs (in a private mount namespace with its own /etc/cdi and
# /var/run/cdi): a broken file is skipped, a name defined twice in one directory refused, one in
# /var/run/cdi wins; doctor says each, and `run --container` passes explicit nodes rather than a
# refused name (needs root: unshare, mount, mknod).
add_test(NAME cdi_resolve_podman_e2e
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/cdi_resolve_podman_test.sh $<TARGET_FILE:anygpu>
                 ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(cdi_resolve_podman_e2e PROPERTIES LABELS system RESOURCE_LOCK podman TIMEOUT 300)
# A MIG host whose cap nodes do not exist yet: Podman makes each instance's nodes from the
# spec's type/major/minor and the container sees that instance's nodes only (needs root).
add_test(NAME cdi_mig_podman_e2e
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/cdi_mig_podman_test.sh $<TARGET_FILE:anygpu>
                 ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(cdi_mig_podman_e2e PROPERTIES LABELS system RESOURCE_LOCK podman TIMEOUT 300)
