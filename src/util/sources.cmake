# Text, numbers, versions and strict YAML: no knowledge of hosts or vendors. Most of it is also
# needed by the registry compiler, which runs before the core exists.
set(ANYGPU_UTIL_BOOTSTRAP_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/strings.cc
  ${CMAKE_CURRENT_LIST_DIR}/suggest.cc
  ${CMAKE_CURRENT_LIST_DIR}/yaml_reader.cc
  ${CMAKE_CURRENT_LIST_DIR}/regular_file.cc
  ${CMAKE_CURRENT_LIST_DIR}/fork_safety.cc
  ${CMAKE_CURRENT_LIST_DIR}/version.cc
)
set(ANYGPU_UTIL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/cpulist.cc
  ${CMAKE_CURRENT_LIST_DIR}/env_vars.cc
  ${CMAKE_CURRENT_LIST_DIR}/file_trust.cc
  ${CMAKE_CURRENT_LIST_DIR}/pep440.cc
  ${CMAKE_CURRENT_LIST_DIR}/diagnostics.cc
  ${CMAKE_CURRENT_LIST_DIR}/version_tokens.cc
  ${CMAKE_CURRENT_LIST_DIR}/terminal_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/utf8.cc
  ${CMAKE_CURRENT_LIST_DIR}/sha256.cc
  ${CMAKE_CURRENT_LIST_DIR}/json_parse.cc
)
