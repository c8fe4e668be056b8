# Finds libmicrohttpd for rblk-target's Prometheus endpoint (--metrics)
# according to RBLK_METRICS (AUTO, ON, OFF) and sets RBLK_HAVE_METRICS and
# PkgConfig::MHD. Only the daemon links it, never the target library.

include_guard(GLOBAL)

set(RBLK_HAVE_METRICS OFF)
if(NOT RBLK_METRICS STREQUAL "OFF")
	pkg_check_modules(MHD QUIET IMPORTED_TARGET libmicrohttpd)
	if(MHD_FOUND)
		set(RBLK_HAVE_METRICS ON)
	elseif(RBLK_METRICS STREQUAL "ON")
		message(FATAL_ERROR "RBLK_METRICS=ON but libmicrohttpd was not found "
			"(apt-get install libmicrohttpd-dev)")
	endif()
endif()
if(RBLK_HAVE_METRICS)
	message(STATUS "Prometheus metrics (rblk-target --metrics): ON")
else()
	message(STATUS "Prometheus metrics (rblk-target --metrics): OFF "
		"(libmicrohttpd not found: apt-get install libmicrohttpd-dev)")
endif()
