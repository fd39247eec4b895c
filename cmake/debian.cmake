# Debian packages from the build tree (CPack's DEB generator; docs/design.md says why not
# debhelper): anygpu (CLI, unit, share/, Python package), libanygpu0 (the C ABI) and
# libanygpu-dev. Dependencies are computed by dpkg-shlibdeps; libanygpu0 gets a shlibs file and
# the ldconfig trigger. `make deb` runs `cpack -G DEB` here.
set(ANYGPU_DEB_MAINTAINER "anygpu maintainers <anygpu@example.org>" CACHE STRING
    "Maintainer field of the Debian packages")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME anygpu)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${ANYGPU_DEB_MAINTAINER}")
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPack would prepend it to every package's description.
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli lib dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/anygpu/anygpu")

include(CPackComponent)
cpack_add_component(lib DISPLAY_NAME "C ABI")
cpack_add_component(cli DISPLAY_NAME "CLI" DEPENDS lib)
cpack_add_component(dev DISPLAY_NAME "development files" DEPENDS lib)

set(_debian ${CMAKE_SOURCE_DIR}/packaging/debian)
set(CPACK_DEBIAN_CLI_PACKAGE_NAME anygpu)
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "python3, pci.ids")
set(CPACK_DEBIAN_CLI_DESCRIPTION
"run machine-learning experiments on any accelerator vendor
anygpu discovers every accelerator (NVIDIA, AMD, Intel, Ascend, Moore Threads,
Cambricon, Hygon, Iluvatar, MetaX, Enflame, Kunlunxin, Gaudi) from kernel
interfaces first and vendor libraries second, checks an experiment's runtime
contract, selects devices, launches natively, in containers, under torchrun,
Slurm or Kubernetes, and exports metrics to Prometheus.

This package has the anygpu command, its man pages and completions, the
Python package, and the exporter's systemd unit (installed disabled).")
set(CPACK_DEBIAN_CLI_PACKAGE_CONTROL_EXTRA
    "${_debian}/anygpu/postinst;${_debian}/anygpu/prerm;${_debian}/anygpu/postrm")
set(CPACK_DEBIAN_CLI_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_LIB_PACKAGE_NAME libanygpu${ANYGPU_SOVERSION})
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
# Only libanygpu0 holds a shared library, so only it gets a shlibs file.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=")
set(CPACK_DEBIAN_LIB_PACKAGE_CONTROL_EXTRA "${_debian}/libanygpu0/triggers")
set(CPACK_DEBIAN_LIB_DESCRIPTION
"accelerator discovery and selection for every vendor (C ABI)
libanygpu gives any language anygpu's inventory and device selection as JSON
documents: anygpu_detect_json, anygpu_select_json, anygpu_free.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libanygpu-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_DESCRIPTION
"accelerator discovery and selection for every vendor (development files)
The header anygpu.h, the pkg-config file and the CMake package
(find_package(anygpu), target anygpu::anygpu) for building against libanygpu.")

# Per package: the copyright file and a changelog, as Debian policy asks of every package
# (lintian's no-copyright-file, no-changelog); a native package's is changelog.gz.
string(TIMESTAMP _deb_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(_deb_docs ${CMAKE_BINARY_DIR}/debian-docs)
foreach(comp cli lib dev)
  string(TOUPPER ${comp} COMP)
  set(_pkg ${CPACK_DEBIAN_${COMP}_PACKAGE_NAME})
  set(ANYGPU_DEB_PACKAGE ${_pkg})
  set(ANYGPU_DEB_DATE "${_deb_date}")
  configure_file(${_debian}/changelog.in ${_deb_docs}/${_pkg}/changelog.Debian @ONLY)
  execute_process(COMMAND gzip -9nc INPUT_FILE ${_deb_docs}/${_pkg}/changelog.Debian
                  OUTPUT_FILE ${_deb_docs}/${_pkg}/changelog.gz COMMAND_ERROR_IS_FATAL ANY)
  install(FILES ${_debian}/copyright ${_deb_docs}/${_pkg}/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${_pkg} COMPONENT ${comp}
          EXCLUDE_FROM_ALL)
endforeach()

install(FILES ${_debian}/libanygpu0/lintian-overrides RENAME libanygpu${ANYGPU_SOVERSION}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides COMPONENT lib EXCLUDE_FROM_ALL)

include(CPack)
