# `anygpu host-init` and `anygpu init`: preparing a host, scaffolding an experiment.
# The scaffold's templates (data/init/) are embedded as text; editing one re-runs configure.
set(ANYGPU_INIT_TEMPLATE_FILES
  train.py runtime-spec.yaml accelerator-config.yaml Dockerfile .dockerignore
  .github/workflows/image.yml README.md)
set(ANYGPU_INIT_TEMPLATES "")
foreach(rel ${ANYGPU_INIT_TEMPLATE_FILES})
  set(abs ${CMAKE_CURRENT_LIST_DIR}/../../data/init/${rel})
  file(READ ${abs} content)
  set(exec false)
  if(rel MATCHES "\\.py$")
    set(exec true)
  endif()
  string(APPEND ANYGPU_INIT_TEMPLATES
    "      {\"${rel}\", R\"anygpu_template(${content})anygpu_template\", ${exec}},\n")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${abs})
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/init_templates_data.cc.in
               ${CMAKE_BINARY_DIR}/generated/init_templates_data.cc @ONLY)
set(ANYGPU_HOSTPREP_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/host_init.cc
  ${CMAKE_CURRENT_LIST_DIR}/scaffold.cc
  ${CMAKE_BINARY_DIR}/generated/init_templates_data.cc
)
set(ANYGPU_HOSTPREP_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../cli/host_init_cmd.cc
  ${CMAKE_CURRENT_LIST_DIR}/../cli/init_cmd.cc
)
