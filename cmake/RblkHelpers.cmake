# Helper functions so that leaf CMakeLists stay a few lines.
#
#   rblk_static_lib(NAME SOURCES a.c b.c LIBS x y)
#       An internal static library: PIC (it is linked into the shared libraries),
#       hidden visibility, the project's include paths.
#   rblk_unit_test(NAME SOURCES t.c LIBS x y)
#       A CUnit test program registered with CTest under the label "unit".
#   rblk_fuzz_target(NAME SOURCES f.c LIBS x y RUNS n)
#       A libFuzzer harness. With clang it links -fsanitize=fuzzer and registers a
#       bounded run (label "fuzz"); with another compiler it links the standalone
#       driver (tests/fuzz/standalone.c), which replays the seeds and n random inputs.

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
	set_tests_properties(${name} PROPERTIES LABELS unit TIMEOUT 300)
endfunction()

function(rblk_fuzz_target name)
	cmake_parse_arguments(A "" "RUNS" "SOURCES;LIBS" ${ARGN})
	if(NOT A_RUNS)
		set(A_RUNS 20000)
	endif()
	add_executable(${name} ${A_SOURCES})
	target_link_libraries(${name} PRIVATE ${A_LIBS})
	if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
		target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
		target_link_options(${name} PRIVATE -fsanitize=fuzzer)
		add_test(NAME ${name} COMMAND ${name} -runs=${A_RUNS} -seed=1 -max_len=8192)
	else()
		target_sources(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/fuzz/standalone.c)
		add_test(NAME ${name} COMMAND ${name} ${A_RUNS})
	endif()
	set_tests_properties(${name} PROPERTIES LABELS "unit;fuzz" TIMEOUT 600)
endfunction()
