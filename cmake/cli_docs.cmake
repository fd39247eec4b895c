# Man pages and shell completions, written from the CLI's own command table at build time:
# `anygpu --help-dump` prints the tree, tools/cli_docs.py renders it. A new command appears in
# both on the next build; nothing lists commands twice.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(ANYGPU_CLI_DOCS_DIR ${CMAKE_BINARY_DIR}/cli-docs)
set(ANYGPU_CLI_DOCS_STAMP ${ANYGPU_CLI_DOCS_DIR}/stamp)
add_custom_command(
  OUTPUT ${ANYGPU_CLI_DOCS_STAMP}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${ANYGPU_CLI_DOCS_DIR}
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/cli_docs.py
          $<TARGET_FILE:anygpu> ${ANYGPU_CLI_DOCS_DIR}
  COMMAND ${CMAKE_COMMAND} -E touch ${ANYGPU_CLI_DOCS_STAMP}
  DEPENDS anygpu ${CMAKE_SOURCE_DIR}/tools/cli_docs.py
  COMMENT "Writing man pages and shell completions from the command table"
  VERBATIM)
add_custom_target(anygpu_cli_docs ALL DEPENDS ${ANYGPU_CLI_DOCS_STAMP})
