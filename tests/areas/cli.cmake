# The CLI as a whole: every input either used as written or refused naming where, the real
# binary against every fixture host and its golden expected.json, and every command's warnings
# through the one channel.
list(APPEND ANYGPU_UNIT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../unit/strict_input_test.cc
)
add_test(NAME e2e_cli COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/cli_test.sh
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
add_test(NAME e2e_strict_cli COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/strict_cli_test.sh
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
add_test(NAME e2e_terminal_escape COMMAND ${CMAKE_CURRENT_LIST_DIR}/../e2e/terminal_escape_test.sh
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
add_test(NAME e2e_warnings_channel
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../e2e/warnings_channel_test.py
         $<TARGET_FILE:anygpu> ${CMAKE_CURRENT_LIST_DIR}/../hosts)
set_tests_properties(e2e_warnings_channel PROPERTIES TIMEOUT 300)
