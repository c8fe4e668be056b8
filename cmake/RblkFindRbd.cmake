# Finds librbd + librados for the RBD backend according to RBLK_RBD (AUTO, ON,
# OFF) and sets RBLK_HAVE_RBD and the imported target Rblk::rbd.
#
# pkg-config first, for distributions that ship librbd.pc; Debian 12's
# librbd-dev and librados-dev ship none, so then the plain libraries and the
# header. librbd must be linked together with librados: the backend calls
# rados_* directly, and the linker's --no-copy-dt-needed-entries refuses to
# reach librados through librbd.

include_guard(GLOBAL)

set(RBLK_HAVE_RBD OFF)
if(NOT RBLK_RBD STREQUAL "OFF")
	pkg_check_modules(RBD QUIET IMPORTED_TARGET librbd librados)
	if(RBD_FOUND)
		add_library(Rblk::rbd INTERFACE IMPORTED)
		target_link_libraries(Rblk::rbd INTERFACE PkgConfig::RBD)
		set(RBLK_HAVE_RBD ON)
	else()
		find_library(RBD_LIBRARY NAMES rbd)
		find_library(RADOS_LIBRARY NAMES rados)
		find_path(RBD_INCLUDE_DIR NAMES rbd/librbd.h)
		if(RBD_LIBRARY AND RADOS_LIBRARY AND RBD_INCLUDE_DIR)
			add_library(Rblk::rbd INTERFACE IMPORTED)
			target_link_libraries(Rblk::rbd INTERFACE ${RBD_LIBRARY} ${RADOS_LIBRARY})
			target_include_directories(Rblk::rbd INTERFACE ${RBD_INCLUDE_DIR})
			set(RBLK_HAVE_RBD ON)
		endif()
	endif()
	if(NOT RBLK_HAVE_RBD AND RBLK_RBD STREQUAL "ON")
		message(FATAL_ERROR "RBLK_RBD=ON but librbd/librados were not found "
			"(apt-get install librbd-dev librados-dev)")
	endif()
endif()
# For the static library's pkg-config file (Libs.private).
set(RBLK_PC_RBD_LIBS "")
if(RBLK_HAVE_RBD)
	set(RBLK_PC_RBD_LIBS " -lrbd -lrados")
endif()
message(STATUS "RBD backend (rbd:POOL/IMAGE): ${RBLK_HAVE_RBD}")
