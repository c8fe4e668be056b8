# Debian packages with CPack (DEB generator), one .deb per install() component.
#
#   cmake -S . -B build-pkg -DCMAKE_INSTALL_PREFIX=/usr -DRBLK_FIO_PLUGIN=ON -DRBLK_TESTS=OFF
#   cmake --build build-pkg -j && (cd build-pkg && cpack -G DEB)
#   apt-get install ./build-pkg/*.deb           # scripts/package-test.sh does all this
#
# Components -> packages. Every install() call of the project names one of these
# components with COMPONENT (or NAMELINK_COMPONENT / ARCHIVE ... COMPONENT); a rule with
# none lands in "Unspecified", which no package contains (scripts/package-test.sh fails
# on such rules):
#
#   component     package              what (where its install() calls are)
#   tools         rblk                 rblk, rblk-target, rblk.1, rblk-target.8, the
#                                      systemd unit, bash completion, the example JSON
#                                      configs (cli/, daemon/)
#   libcommon     librblk-common0      librblk-common.so.0[.x.y]          (common/)
#   libinitiator  librblk-initiator0   librblk-initiator.so.0[.x.y]       (initiator/)
#   libtarget     librblk-target0      librblk-target.so.0[.x.y]          (target/)
#   dev           librblk-dev          include/rblk/*.h, the .so namelinks, the static
#                                      archives, rblk-common.pc, rblk-initiator.pc,
#                                      rblk-target.pc                     (common/,
#                                      initiator/, target/)
#   fio           rblk-fio             librblk_fio.so in <libdir>/fio     (fio-plugin/)
#
# So the library directories must install like this:
#
#   install(TARGETS rblk-initiator
#       LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT libinitiator
#               NAMELINK_COMPONENT dev
#       ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)      # a static target
#   install(FILES .../include/rblk/initiator.h ... COMPONENT dev)
#   install(FILES .../rblk-initiator.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
#       COMPONENT dev)
#
# and the same with libcommon (the common shared library) and libtarget
# (rblk-target-lib, OUTPUT_NAME rblk-target; rblk-target-static in dev).
#
# A component with no install() rule yet (a library that has not landed) produces no
# package, and no other package depends on it: cmake/RblkCPackProject.cmake.in prunes
# both at cpack time by reading the generated cmake_install.cmake files.
#
# Dependencies: dpkg-shlibdeps (CPACK_DEBIAN_PACKAGE_SHLIBDEPS) for the shared libraries
# each ELF file needs, plus explicit ones: rblk needs the three library packages;
# librblk-dev the three at exactly this version, and the -dev packages of what the
# static archives and the .pc files' Requires.private need; rblk-fio the exact fio
# package it was compiled against (fio refuses an engine built for another
# FIO_IOOPS_VERSION).
#
# Build the packages with CMAKE_INSTALL_PREFIX=/usr: the systemd unit names
# ${CMAKE_INSTALL_FULL_BINDIR}/rblk-target, and GNUInstallDirs gives the multiarch
# libdir (lib/x86_64-linux-gnu) only for /usr.

include_guard(GLOBAL)

if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
	message(STATUS "packaging: CMAKE_INSTALL_PREFIX is ${CMAKE_INSTALL_PREFIX}; "
		"Debian packages want -DCMAKE_INSTALL_PREFIX=/usr (see cmake/RblkPackaging.cmake)")
endif()

# ---- the copyright file of every package (/usr/share/doc/<package>/copyright)
set(_rblk_pkg_components tools libcommon libinitiator libtarget dev fio)
set(_rblk_pkg_name_tools rblk)
set(_rblk_pkg_name_libcommon librblk-common0)
set(_rblk_pkg_name_libinitiator librblk-initiator0)
set(_rblk_pkg_name_libtarget librblk-target0)
set(_rblk_pkg_name_dev librblk-dev)
set(_rblk_pkg_name_fio rblk-fio)
# These rules sit in the top directory's cmake_install.cmake, which the pruning at cpack
# time does not read: a component is packaged only if a subdirectory installs into it.
# EXCLUDE_FROM_ALL: only per-component installs (CPack's) take them, not `cmake --install`.
foreach(_c IN LISTS _rblk_pkg_components)
	install(FILES ${PROJECT_SOURCE_DIR}/LICENSE
		DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${_rblk_pkg_name_${_c}}
		RENAME copyright COMPONENT ${_c} EXCLUDE_FROM_ALL)
endforeach()

# ---- generic
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rblk)
set(CPACK_PACKAGE_VENDOR "The rblk authors")
set(CPACK_PACKAGE_CONTACT "rblk developers <rblk@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "NVMe over Fabrics on RDMA, in userspace")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL ${_rblk_pkg_components})
set(CPACK_DEB_COMPONENT_INSTALL ON)

set(CPACK_DEBIAN_PACKAGE_MAINTAINER "rblk developers <rblk@localhost>")
set(CPACK_DEBIAN_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_PACKAGE_SOURCE rblk)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)          # <name>_<version>_<arch>.deb
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Our own libraries, needed by each other and by the programs, are in this build:
# dpkg-shlibdeps must look there (the inter-package Depends below name them).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS
	${CMAKE_BINARY_DIR}/common ${CMAKE_BINARY_DIR}/initiator ${CMAKE_BINARY_DIR}/target)
# shlibs files for the libraries (and with them the ldconfig trigger)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
execute_process(COMMAND dpkg --print-architecture OUTPUT_VARIABLE _arch
	OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc ERROR_QUIET)
if(_rc EQUAL 0 AND _arch)
	set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${_arch})   # amd64, arm64, ...
endif()

# ---- per package
set(_v ${PROJECT_VERSION})
set(_desc_tail " rblk is an NVMe over Fabrics target and initiator on RDMA (RoCE, InfiniBand,\n iWARP) that runs in userspace and is wire-compatible with the Linux kernel's\n nvme-rdma host and nvmet-rdma target.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME rblk)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_TOOLS_DESCRIPTION "NVMe over Fabrics/RDMA target daemon and initiator tool\n${_desc_tail}\n .\n This package holds rblk (discover, identify, read/write, bench, doctor, NBD\n attach) and rblk-target (the target daemon, nvmetcli JSON configuration,\n systemd unit), their manual pages and example configurations.")
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS
	"librblk-initiator0 (>= ${_v}), librblk-target0 (>= ${_v}), librblk-common0 (>= ${_v})")
set(CPACK_DEBIAN_TOOLS_PACKAGE_RECOMMENDS "rdma-core, ibverbs-providers")
set(CPACK_DEBIAN_TOOLS_PACKAGE_SUGGESTS "nvme-cli, rblk-fio")

set(CPACK_DEBIAN_LIBCOMMON_PACKAGE_NAME librblk-common0)
set(CPACK_DEBIAN_LIBCOMMON_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIBCOMMON_DESCRIPTION "rblk shared library: log hook and version\n${_desc_tail}\n .\n This package holds librblk-common, which the target and initiator libraries\n share: the log hook and the version.")

set(CPACK_DEBIAN_LIBINITIATOR_PACKAGE_NAME librblk-initiator0)
set(CPACK_DEBIAN_LIBINITIATOR_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIBINITIATOR_DESCRIPTION "rblk NVMe over Fabrics/RDMA initiator library\n${_desc_tail}\n .\n This package holds librblk-initiator, the host side: discovery, controllers,\n I/O queue pairs and registered buffers.")
set(CPACK_DEBIAN_LIBINITIATOR_PACKAGE_DEPENDS "librblk-common0 (>= ${_v})")
set(CPACK_DEBIAN_LIBINITIATOR_PACKAGE_RECOMMENDS "ibverbs-providers")

set(CPACK_DEBIAN_LIBTARGET_PACKAGE_NAME librblk-target0)
set(CPACK_DEBIAN_LIBTARGET_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIBTARGET_DESCRIPTION "rblk NVMe over Fabrics/RDMA target library\n${_desc_tail}\n .\n This package holds librblk-target, an embeddable target: subsystems,\n namespaces on files and block devices (io_uring, libaio), RDMA listeners.")
set(CPACK_DEBIAN_LIBTARGET_PACKAGE_DEPENDS "librblk-common0 (>= ${_v})")
set(CPACK_DEBIAN_LIBTARGET_PACKAGE_RECOMMENDS "ibverbs-providers")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME librblk-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_DESCRIPTION "rblk NVMe over Fabrics/RDMA libraries: development files\n${_desc_tail}\n .\n This package holds the headers (rblk/common.h, rblk/initiator.h,\n rblk/target.h, rblk/provider.h), the static libraries, the .so links and the pkg-config files\n rblk-common, rblk-initiator and rblk-target.")
# The -dev packages: pkg-config needs the Requires.private modules (libibverbs,
# librdmacm, ...), and the static archives need their libraries.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
	"librblk-common0 (= ${_v}), librblk-initiator0 (= ${_v}), librblk-target0 (= ${_v}), "
	"libibverbs-dev, librdmacm-dev, liburing-dev, libaio-dev, libjson-c-dev")
string(JOIN "" CPACK_DEBIAN_DEV_PACKAGE_DEPENDS ${CPACK_DEBIAN_DEV_PACKAGE_DEPENDS})

set(CPACK_DEBIAN_FIO_PACKAGE_NAME rblk-fio)
set(CPACK_DEBIAN_FIO_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_FIO_DESCRIPTION "fio ioengine for NVMe over Fabrics/RDMA through rblk\n${_desc_tail}\n .\n This package holds librblk_fio.so, an external fio ioengine: fio talks to an\n NVMe-oF RDMA target with no kernel host. Load it with\n ioengine=external:${CMAKE_INSTALL_FULL_LIBDIR}/fio/librblk_fio.so")
set(_rblk_fio_dep "fio")
if(TARGET rblk_fio)
	# fio checks an engine's ABI version exactly: depend on the very fio package
	# whose source the plugin was compiled against (fio-plugin/get-fio-source.sh
	# fetches exactly the installed version).
	execute_process(COMMAND dpkg-query -W -f=\${Version} fio
		OUTPUT_VARIABLE _fio_debver RESULT_VARIABLE _rc ERROR_QUIET
		OUTPUT_STRIP_TRAILING_WHITESPACE)
	if(_rc EQUAL 0 AND _fio_debver)
		set(_rblk_fio_dep "fio (= ${_fio_debver})")
	else()
		message(WARNING "packaging: fio is not a Debian package here; rblk-fio depends on any fio")
	endif()
endif()
set(CPACK_DEBIAN_FIO_PACKAGE_DEPENDS "${_rblk_fio_dep}")

# Pruning of empty components (and of dependencies on their packages) at cpack time.
set(RBLK_PKG_BINARY_DIR ${PROJECT_BINARY_DIR})
configure_file(${CMAKE_CURRENT_LIST_DIR}/RblkCPackProject.cmake.in
	${PROJECT_BINARY_DIR}/RblkCPackProject.cmake @ONLY)
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/RblkCPackProject.cmake)

include(CPack)
