# `anygpu check`: the runtime-spec parser, PEP 440, the evaluation.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/contract_pep440_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/contract_pep440_vectors_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/contract_spec_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/contract_eval_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../unit/contract_cases_test.cc
)
