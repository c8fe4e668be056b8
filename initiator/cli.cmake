# rblk, the command-line tool (initiator/cli_*.c), and NBD attach (initiator/nbd_*.c).
# Included from initiator/CMakeLists.txt with one line; kept apart so the CLI and
# the initiator library grow without edit conflicts.
#
#   rblk_cli      everything of the tool but main(); links against the public
#                 initiator API, which the executable takes from the library and
#                 the tests from a fake (tests/unit/initiator/cli_fake_initiator.c)
#   rblk          the tool, built once the initiator library target exists
include_guard(GLOBAL)

set(RBLK_CLI_DIR ${CMAKE_CURRENT_LIST_DIR})
set(RBLK_CLI_TESTS ${PROJECT_SOURCE_DIR}/tests/unit/initiator)

set(RBLK_CLI_SOURCES
	cli_main.c cli_args.c cli_conn.c cli_output.c cli_output_id.c
	cli_discover.c cli_id.c cli_progress.c cli_rw.c
	cli_bench.c cli_bench_run.c cli_bench_stats.c cli_baseline.c cli_counters.c cli_doctor.c cli_doctor_checks.c cli_attach.c
	nbd_proto.c nbd_conn.c nbd_netlink.c nbd_rblk.c)
list(TRANSFORM RBLK_CLI_SOURCES PREPEND ${RBLK_CLI_DIR}/)
rblk_static_lib(rblk_cli
	SOURCES ${RBLK_CLI_SOURCES}
	LIBS rblk_transport rblk_protocol rblk_common PkgConfig::JSONC PkgConfig::NLGENL
		Threads::Threads m)

# The initiator library's target name; the tool is built only when it exists.
set(RBLK_CLI_INITIATOR_LIB rblk_initiator)
if(TARGET ${RBLK_CLI_INITIATOR_LIB})
	add_executable(rblk ${RBLK_CLI_DIR}/cli_entry.c)
	target_link_libraries(rblk PRIVATE rblk_cli ${RBLK_CLI_INITIATOR_LIB})
	install(TARGETS rblk RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
	install(FILES ${PROJECT_SOURCE_DIR}/docs/rblk.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
	install(FILES ${PROJECT_SOURCE_DIR}/docs/bash-completion/rblk
		DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
endif()

if(RBLK_TESTS)
	# The fake initiator library and the tool built on it (no RDMA needed).
	rblk_static_lib(rblk_cli_fake SOURCES ${RBLK_CLI_TESTS}/cli_fake_initiator.c
		LIBS rblk_protocol rblk_common)
	add_executable(rblk-fake ${RBLK_CLI_DIR}/cli_entry.c)
	target_link_libraries(rblk-fake PRIVATE rblk_cli rblk_cli_fake)

	foreach(t cli_args cli_output cli_bench_stats cli_baseline cli_counters cli_doctor
			nbd_proto nbd_conn nbd_netlink nbd_rblk)
		rblk_unit_test(initiator_${t}_ut SOURCES ${RBLK_CLI_TESTS}/${t}_ut.c
			LIBS rblk_cli rblk_cli_fake)
		target_include_directories(initiator_${t}_ut PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit)
	endforeach()
	# The whole tool as users run it: exit codes, messages, help, JSON (needs jq).
	add_test(NAME initiator_cli_main_test
		COMMAND ${RBLK_CLI_TESTS}/cli_main_test.sh $<TARGET_FILE:rblk-fake>)
	set_tests_properties(initiator_cli_main_test PROPERTIES LABELS unit TIMEOUT 300
		SKIP_RETURN_CODE 77)
endif()
