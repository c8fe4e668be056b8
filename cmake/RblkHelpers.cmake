# Helper functions so that leaf CMakeLists stay a few lines.
#
#   rblk_static_lib(NAME SOURCES a.c b.c LIBS x y)
#       An internal static library: PIC (it is linked into the shared libraries),
#       hidden visibility, the project's include paths.
#   rblk_unit_test(NAME SOURCES t.c LIBS x y)
#       A CUnit test program registered with CTest under the label "unit"; exit
#       code 77 is a skip.
#   rblk_fuzz_lib(LIB)
#       LIB_fuzz: with clang, a copy of the internal static library LIB compiled
#       with -fsanitize=fuzzer-no-link (coverage for libFuzzer), linked to the
#       _fuzz copies of its dependencies that exist; otherwise just LIB.
#   rblk_fuzz_target(NAME SOURCES f.c LIBS x y RUNS n)
#       A libFuzzer harness over its corpus tests/fuzz/corpus/NAME. With clang it
#       links -fsanitize=fuzzer and registers a run of RBLK_FUZZ_SECONDS (label
#       "fuzz"); with another compiler it links the standalone driver
#       (tests/fuzz/standalone.c), which replays the seeds, the corpus and n
#       random inputs.

include_guard(GLOBAL)

function(rblk_static_lib name)
	cmake_parse_arguments(A "" "" "SOURCES;LIBS" ${ARGN})
	add_library(${name} STATIC ${A_SOURCES})
	set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
	target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR})
	if(A_LIBS)
		target_link_libraries(${name} PUBLIC ${A_LIBS})
	endif()
endfunction()

function(rblk_unit_test name)
	cmake_parse_arguments(A "" "" "SOURCES;LIBS" ${ARGN})
	add_executable(${name} ${A_SOURCES})
	target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit)
	target_link_libraries(${name} PRIVATE ${A_LIBS} PkgConfig::CUNIT)
	add_test(NAME ${name} COMMAND ${name})
	# 77: a case could not run here (ut_skip in tests/unit/ut.h), reported as skipped.
	set_tests_properties(${name} PROPERTIES LABELS unit TIMEOUT 300 SKIP_RETURN_CODE 77)
endfunction()

# Instrumenting only a copy keeps the production libraries (and the unit tests)
# free of coverage counters.
function(rblk_fuzz_lib lib)
	if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
		add_library(${lib}_fuzz INTERFACE)
		target_link_libraries(${lib}_fuzz INTERFACE ${lib})
		return()
	endif()
	get_target_property(src ${lib} SOURCES)
	get_target_property(dir ${lib} SOURCE_DIR)
	get_target_property(inc ${lib} INCLUDE_DIRECTORIES)
	get_target_property(pub ${lib} INTERFACE_INCLUDE_DIRECTORIES)
	get_target_property(deps ${lib} INTERFACE_LINK_LIBRARIES)
	list(TRANSFORM src PREPEND ${dir}/ REGEX "^[^/]")
	add_library(${lib}_fuzz STATIC ${src})
	# The library's own include path stays its own: target/ puts an #error
	# directory first for backend headers, which its users may include.
	target_include_directories(${lib}_fuzz PRIVATE ${inc})
	if(pub)
		target_include_directories(${lib}_fuzz PUBLIC ${pub})
	endif()
	target_compile_options(${lib}_fuzz PRIVATE -fsanitize=fuzzer-no-link)
	foreach(d IN LISTS deps)
		if(TARGET ${d}_fuzz)
			target_link_libraries(${lib}_fuzz PUBLIC ${d}_fuzz)
		else()
			target_link_libraries(${lib}_fuzz PUBLIC ${d})
		endif()
	endforeach()
endfunction()

function(rblk_fuzz_target name)
	cmake_parse_arguments(A "" "RUNS" "SOURCES;LIBS" ${ARGN})
	if(NOT A_RUNS)
		set(A_RUNS 20000)
	endif()
	set(corpus ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/${name})
	add_executable(${name} ${A_SOURCES})
	target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/fuzz)
	target_link_libraries(${name} PRIVATE ${A_LIBS})
	if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
		target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
		target_link_options(${name} PRIVATE -fsanitize=fuzzer)
		# New inputs go to a scratch directory (the first one libFuzzer is
		# given); the repository's corpus is only read.
		# given); the repository's corpus is only read. A crashing input goes to
		# fuzz-artifacts/, where scripts/test.sh finds it to print it.
		set(scratch ${CMAKE_BINARY_DIR}/fuzz-scratch/${name})
		file(MAKE_DIRECTORY ${scratch} ${CMAKE_BINARY_DIR}/fuzz-artifacts)
		add_test(NAME ${name} COMMAND ${name} -max_total_time=${RBLK_FUZZ_SECONDS}
			-seed=1 -max_len=8192 -timeout=20 -print_final_stats=1
			-artifact_prefix=${CMAKE_BINARY_DIR}/fuzz-artifacts/${name}-
			${scratch} ${corpus})
		math(EXPR limit "${RBLK_FUZZ_SECONDS} * 3 + 60")
	else()
		target_sources(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/fuzz/standalone.c)
		add_test(NAME ${name} COMMAND ${name} ${A_RUNS} ${corpus})
		set(limit 600)
	endif()
	set_tests_properties(${name} PROPERTIES LABELS "unit;fuzz" TIMEOUT ${limit})
endfunction()

# rblk_public_lib(NAME OUTPUT out MAP file.map ARCHIVES a b LIBS x y
#                 PC file.pc.in COMPONENT comp)
#   A public library made of internal static libraries (ARCHIVES, linked
#   whole), in two forms:
#     NAME          lib<out>.so.<major>: hidden visibility, the version script
#                   MAP (exactly the rblk_* API), an SONAME, every dependency
#                   linked (LIBS; --no-undefined outside sanitizer builds);
#     NAME-static   lib<out>.a: one relocatable object of the same archives,
#                   its hidden symbols made local, so that two rblk static
#                   libraries share no internal name and link into one program.
#   Both are installed (the .a and the .so link in the dev component), with
#   the pkg-config file PC (configured) in the dev component.
function(rblk_public_lib name)
	cmake_parse_arguments(A "" "OUTPUT;MAP;PC;COMPONENT" "ARCHIVES;LIBS" ${ARGN})
	add_library(${name} SHARED ${A_MAP})
	set_source_files_properties(${A_MAP} PROPERTIES HEADER_FILE_ONLY TRUE)
	set_target_properties(${name} PROPERTIES
		LINKER_LANGUAGE C
		OUTPUT_NAME ${A_OUTPUT}
		VERSION ${PROJECT_VERSION}
		SOVERSION ${PROJECT_VERSION_MAJOR}
		C_VISIBILITY_PRESET hidden
		LINK_DEPENDS ${A_MAP})
	# Raw flags rather than $<LINK_LIBRARY:WHOLE_ARCHIVE>: the same archives
	# also come in as dependencies of each other, which CMake refuses to mix.
	set(whole "")
	foreach(a IN LISTS A_ARCHIVES)
		list(APPEND whole $<TARGET_FILE:${a}>)
	endforeach()
	add_dependencies(${name} ${A_ARCHIVES})
	target_link_libraries(${name} PRIVATE -Wl,--whole-archive ${whole} -Wl,--no-whole-archive
		${A_LIBS})
	foreach(a IN LISTS A_ARCHIVES)
		target_link_libraries(${name} PRIVATE $<TARGET_PROPERTY:${a},INTERFACE_LINK_LIBRARIES>)
	endforeach()
	target_link_options(${name} PRIVATE -Wl,--version-script=${A_MAP})
	# Every dependency is linked in; the sanitizer runtimes come from the executable.
	if(NOT RBLK_SANITIZE)
		target_link_options(${name} PRIVATE -Wl,--no-undefined)
	endif()
	target_include_directories(${name} PUBLIC
		$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
		$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

	set(files "")
	foreach(a IN LISTS A_ARCHIVES)
		list(APPEND files $<TARGET_FILE:${a}>)
	endforeach()
	set(out ${CMAKE_CURRENT_BINARY_DIR}/lib${A_OUTPUT}.a)
	set(obj ${CMAKE_CURRENT_BINARY_DIR}/lib${A_OUTPUT}-all.o)
	add_custom_command(OUTPUT ${out}
		COMMAND ${CMAKE_LINKER} -r -o ${obj} --whole-archive ${files} --no-whole-archive
		COMMAND ${CMAKE_OBJCOPY} --localize-hidden ${obj}
		COMMAND ${CMAKE_COMMAND} -E rm -f ${out}
		COMMAND ${CMAKE_AR} rcs ${out} ${obj}
		DEPENDS ${A_ARCHIVES}
		COMMENT "Prelinking the static lib${A_OUTPUT}.a"
		VERBATIM)
	add_custom_target(${name}-static ALL DEPENDS ${out})

	get_filename_component(pcname ${A_PC} NAME_WLE)
	configure_file(${A_PC} ${CMAKE_CURRENT_BINARY_DIR}/${pcname} @ONLY)
	install(TARGETS ${name}
		LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${A_COMPONENT}
		NAMELINK_COMPONENT dev)
	install(FILES ${out} DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
	install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${pcname}
		DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
endfunction()
