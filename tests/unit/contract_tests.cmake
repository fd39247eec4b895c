# `anygpu check` tests, added to unit_tests.
set(ANYGPU_CONTRACT_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/contract_pep440_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/contract_pep440_vectors_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/contract_spec_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/contract_eval_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/contract_cases_test.cc)
