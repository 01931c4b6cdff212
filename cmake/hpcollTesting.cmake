# SPDX-License-Identifier: BSD-3-Clause
# hpcoll test helpers.
#
#   hpcoll_mpi_test(NAME <name> SOURCES <src>... NP <n>...
#                   [LIBRARIES <lib>...] [TIMEOUT <s>] [LABELS <l>...] [ARGS <arg>...])
#       Executable test_<name> (sources + the MPI doctest main); one ctest case
#       <name>.np<N> per process count, run under mpiexec. Label "mpi".
#
#   hpcoll_mpi_run(NAME <test> TARGET <executable> NP <n> [ARGS <arg>...]
#                  [MPIEXEC_ARGS <arg>...] [ENVIRONMENT <VAR=value>...] [LABELS <l>...] [TIMEOUT <s>])
#       One more ctest case running an existing test executable under mpiexec
#       (other arguments or environment variables). MPIEXEC_ARGS go to mpiexec,
#       before the executable (-x LD_PRELOAD=...). Label "mpi". The target
#       hpcoll_mpi_programs builds every TARGET of these runs.
#
#   hpcoll_program_test(NAME <test> TARGET <executable> SCRIPT <file> NP <n> [ARGS <arg>...]
#                       [PASS <variable>...] [TIMEOUT <s>] [ENVIRONMENT <VAR=value>...])
#       ctest case <test> running cmake -P SCRIPT (an application's run_program.cmake) with a
#       params file that sets COMMAND (mpiexec -n NP <flags> <executable> ARGS, a list), NP,
#       and each PASS variable to the caller's arg_<variable> (its cmake_parse_arguments
#       prefix). Label "mpi".
#
#   hpcoll_test(NAME <name> SOURCES <src>... [LIBRARIES <lib>...] [TIMEOUT <s>] [COST <s>]
#               [UNSANITIZED])
#       Plain doctest executable test_<name> (doctest's own main); one ctest
#       case per doctest test case, discovered from the executable when it is
#       built (doctest_discover_tests), so no list of names is kept here.
#       Label "unit". COST: about how many seconds a case takes (below).
#       UNSANITIZED: in a sanitized build (HPCOLL_SANITIZE) the program is
#       built only when asked for (cmake --build <dir> --target test_<name>)
#       and run by hand, not by ctest: for pure computation that takes
#       minutes a case under a sanitizer and runs in every other build.
#
# COST: ctest -j starts the tests in descending order of cost, which it learns
# from earlier runs in the build tree (Testing/Temporary/CTestCostData.txt)
# and, where it has none (a fresh clone: CI), takes from the COST property.
# The one-process tests of tens of seconds declare it (each header alone,
# the verifier's cases, the package builds), so that they run side by side
# first and the MPI runs after: an MPI run beside a compiler waits for the
# cores its ranks need (in declaration order, reduction.np4 and np5 ran
# beside headers.self_contained in 34 and 47 s, 3 and 4 s after it; the whole
# g++ suite from a fresh cost history 385 s, 369 s with COST; 2026-11-27).
#
#   hpcoll_compile_fail_test(NAME <name> SOURCE <file> REGEX <regex>
#                            [LIBRARIES <lib>...] [TIMEOUT <s>])
#       EXCLUDE_FROM_ALL executable compile_fail_<name>; ctest case
#       compile_fail.<name> passes iff building it fails AND the build output
#       matches <regex> (CMake regex syntax). Label "compile-fail".
#
#   hpcoll_expect_failure_test(NAME <test> COMMAND <cmd>... REGEX <regex>
#                              [TIMEOUT <s>] [LABELS <l>...])
#       ctest case <test> that passes iff <cmd> exits nonzero AND its output
#       matches <regex> (used by the harness failure-propagation self-test).
#
#   hpcoll_header_checks()
#       ctest case headers.self_contained: builds hpcoll_header_check, one
#       translation unit per public header that includes it (twice) and
#       nothing else, and one that includes every old path (forwarding
#       header of hpcoll 0.1), with -Wall -Wextra -Wpedantic -Werror. And the target
#       hpcoll_layering, part of every build: cmake/hpcollLayers.cmake fails
#       the build when a lower layer includes a higher one.
#
#   hpcoll_package_test()
#       ctest cases package.<way>: the consumer in tests/package built and run
#       at np 2 in <build>/pkgtest/<way> (cmake/hpcollPackageTest.cmake):
#       package.find_package installs this build tree and finds it (and checks
#       which versions it accepts), package.add_subdirectory and
#       package.FetchContent take the source tree, package.pkg-config installs
#       and builds tests/package/Makefile with pkg-config and the MPI compiler
#       wrapper. Label "package".
#
# Variables:
#   HPCOLL_MPIEXEC_FLAGS  (cache) flags placed after "-n N" for every MPI run.
#   HPCOLL_MPIEXEC_ENV    environment for every test (Open MPI run-as-root).
#   HPCOLL_MPI_FAIL_REGEX output that fails an MPI run (MPICH's leak reports at exit,
#                         sanitizer reports).
#   HPCOLL_LSAN_OPTIONS   LeakSanitizer's options in the ASan build (in HPCOLL_MPIEXEC_ENV).
#   HPCOLL_TEST_DEFAULT_TIMEOUT (cache, default 300 s).
#   HPCOLL_SANITIZE       (cache, empty) "thread": build the tests and the
#                         programs they run with ThreadSanitizer (the dedicated
#                         build of ./hpcoll tsan); "address": with AddressSanitizer
#                         and UndefinedBehaviorSanitizer (./hpcoll test --sanitize
#                         address).
#   HPCOLL_WARNINGS_AS_ERRORS (cache, OFF) the tests' warnings fail their build
#                         (-Werror; CI's Clang build, the sanitized one, sets it).
#   HPCOLL_TEST_OPTIMIZATION (cache, -O1) the test programs' optimization flag in
#                         optimized builds, after the build type's (empty: theirs).
include_guard(GLOBAL)

set(_HPCOLL_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")
cmake_path(GET _HPCOLL_CMAKE_DIR PARENT_PATH _HPCOLL_ROOT_DIR)
set(HPCOLL_TEST_SUPPORT_DIR "${_HPCOLL_ROOT_DIR}/tests/support")

find_package(doctest REQUIRED)
include(doctest)  # doctest_discover_tests
if(NOT TARGET MPI::MPI_CXX)
  find_package(MPI REQUIRED COMPONENTS CXX)
endif()
if(NOT MPIEXEC_EXECUTABLE)
  message(FATAL_ERROR "hpcoll: MPIEXEC_EXECUTABLE not found; cannot run MPI tests")
endif()

set(HPCOLL_TEST_DEFAULT_TIMEOUT 300 CACHE STRING "Default ctest TIMEOUT (seconds) for hpcoll tests")

# --- mpiexec flags -----------------------------------------------------------
# Open MPI (mpiexec --version prints "mpiexec (OpenRTE) 4.x" for 4.x and
# "mpiexec (Open MPI) 5.x" for 5.x):
#   --oversubscribe                more ranks than cores (8 ranks on 2 cores).
#   --bind-to none                 Open MPI binds to cores when np <= #cores; with
#                                  ctest -j2 two concurrent np1/np2 jobs then pile
#                                  onto the same core(s) (measured: 2x np1 compute
#                                  1.7 s bound vs 1.05 s unbound).
#   --mca mpi_yield_when_idle 1    unbound, non-oversubscribed jobs otherwise
#                                  busy-poll against each other (2x np2 allreduce
#                                  loops: up to 3.8 s vs 0.45 s with yield).
# MPICH/Hydra oversubscribes and does not bind by default: no flags needed.
execute_process(
  COMMAND "${MPIEXEC_EXECUTABLE}" --version
  OUTPUT_VARIABLE _hpcoll_mpiexec_version
  ERROR_VARIABLE _hpcoll_mpiexec_version
  RESULT_VARIABLE _hpcoll_mpiexec_rc
  TIMEOUT 30)
if(_hpcoll_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(HPCOLL_MPIEXEC_IS_OPENMPI TRUE)
  set(_hpcoll_default_flags --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
else()
  set(HPCOLL_MPIEXEC_IS_OPENMPI FALSE)
  set(_hpcoll_default_flags "")
endif()
set(HPCOLL_MPIEXEC_FLAGS "${_hpcoll_default_flags}" CACHE STRING
    "Extra mpiexec flags for hpcoll tests (;-separated list, placed after -n N)")
# Open MPI refuses to run as root (CI does) without these.
set(HPCOLL_MPIEXEC_ENV "")
if(HPCOLL_MPIEXEC_IS_OPENMPI)
  set(HPCOLL_MPIEXEC_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endif()
# MPICH reports at MPI_Finalize what the program left allocated (a derived
# datatype never freed: "[WARNING] yaksa: 1 leaked handle pool objects") and
# still exits 0: such output fails the run.
set(HPCOLL_MPI_FAIL_REGEX "")
if(NOT HPCOLL_MPIEXEC_IS_OPENMPI)
  set(HPCOLL_MPI_FAIL_REGEX "\\[WARNING\\] yaksa;leaked handle")
endif()
option(HPCOLL_WARNINGS_AS_ERRORS "Build the tests with -Werror" OFF)
# The test programs check what the library computes; the programs that are
# measured or used (benchmarks, apps, libhpcoll_mpi) keep the build type's
# level. At -O1 the tests compile in about half the time of -O3 (1,701 -> 905 s
# of g++ on 2 cores) and run about 70 s longer (docs/testing.md).
set(HPCOLL_TEST_OPTIMIZATION "-O1" CACHE STRING
    "Optimization flag of the test programs in Release, RelWithDebInfo and MinSizeRel builds (empty: the build type's)")
set(HPCOLL_SANITIZE "" CACHE STRING "Sanitizer for the tests: empty, thread or address (with undefined)")
set(_hpcoll_sanitize_flags -fsanitize=${HPCOLL_SANITIZE})
if(HPCOLL_SANITIZE STREQUAL "thread")
  # Reports make the rank exit with 66 at MPI_Finalize, which fails the test.
  # Open MPI is not instrumented, so TSan cannot see its synchronisation (e.g.
  # between the thread whose MPI call copies a message into a receive buffer
  # and the thread whose MPI_Test then reports the receive complete): its
  # accesses and locks are left out (ignore_noninstrumented_modules), every
  # access and lock of hpcoll and the tests is checked.
  list(APPEND HPCOLL_MPIEXEC_ENV "TSAN_OPTIONS=ignore_noninstrumented_modules=1 history_size=4")
elseif(HPCOLL_SANITIZE STREQUAL "address")
  set(_hpcoll_sanitize_flags -fsanitize=address,undefined -fno-sanitize-recover=undefined)
  # LeakSanitizer: Open MPI 4.1 keeps memory that MPI_Init allocates (in its
  # dlopen'ed components, which it unloads at MPI_Finalize: "<unknown module>"
  # frames), some that MPI_Finalize allocates, and some of its progress
  # thread's (libevent's event_base_loop calling into the components).
  # tests/support/lsan_mpi.supp suppresses exactly the leaks whose stack passes
  # through those three functions; the slow unwinder (fast_unwind_on_malloc=0)
  # finds them under the frames of uninstrumented code without frame pointers,
  # where the fast one stops after the component's first frame.
  set(HPCOLL_LSAN_OPTIONS "fast_unwind_on_malloc=0:suppressions=${HPCOLL_TEST_SUPPORT_DIR}/lsan_mpi.supp")
  list(APPEND HPCOLL_MPIEXEC_ENV "LSAN_OPTIONS=${HPCOLL_LSAN_OPTIONS}" "UBSAN_OPTIONS=print_stacktrace=1")
  # A report fails the run also where the run must fail (a program given bad
  # input exits non-zero anyway, and LeakSanitizer reports only at exit).
  list(APPEND HPCOLL_MPI_FAIL_REGEX "SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer)")
elseif(NOT HPCOLL_SANITIZE STREQUAL "")
  message(FATAL_ERROR "hpcoll: HPCOLL_SANITIZE must be empty, thread or address, not '${HPCOLL_SANITIZE}'")
endif()
# Every C++ target defined from here on, the tests and the programs they run
# (apps/, benchmarks/), is instrumented, and hpcoll::decisions, which they
# link (defined before, so by its own options). The C and Fortran programs of
# tests/pmpi are not: what they test is libhpcoll_mpi, instrumented under
# ASan (also by its own options), and a run that preloads it
# into them preloads the sanitizer's shared runtime first
# (HPCOLL_SANITIZER_RUNTIME; an instrumented program has it built in).
set(HPCOLL_SANITIZER_RUNTIME "")
if(HPCOLL_SANITIZE)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${_hpcoll_sanitize_flags};-fno-omit-frame-pointer>")
  add_link_options("$<$<LINK_LANGUAGE:CXX>:${_hpcoll_sanitize_flags}>")
  if(TARGET hpcoll_decisions)
    target_compile_options(hpcoll_decisions PRIVATE ${_hpcoll_sanitize_flags} -fno-omit-frame-pointer)
  endif()
endif()
if(HPCOLL_SANITIZE STREQUAL "address" AND TARGET hpcoll_mpi)
  target_compile_options(hpcoll_mpi PRIVATE ${_hpcoll_sanitize_flags} -fno-omit-frame-pointer)
  target_link_options(hpcoll_mpi PRIVATE ${_hpcoll_sanitize_flags})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    set(_hpcoll_runtime_name libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
  else()
    set(_hpcoll_runtime_name libasan.so)
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${_hpcoll_runtime_name}
                  OUTPUT_VARIABLE HPCOLL_SANITIZER_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${HPCOLL_SANITIZER_RUNTIME}" OR NOT EXISTS "${HPCOLL_SANITIZER_RUNTIME}")
    message(FATAL_ERROR "hpcoll: HPCOLL_SANITIZE=address with libhpcoll_mpi needs ASan's shared runtime "
                        "(${_hpcoll_runtime_name}), which ${CMAKE_CXX_COMPILER} does not find")
  endif()
endif()
string(REPLACE ";" " " _hpcoll_flags_pretty "${HPCOLL_MPIEXEC_FLAGS}")
message(STATUS "hpcoll: tests run: ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} N ${_hpcoll_flags_pretty}")

# --- shared support targets ---------------------------------------------------
function(_hpcoll_testing_support_targets)
  if(NOT TARGET hpcoll_test_options)
    add_library(hpcoll_test_options INTERFACE)
    if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
      target_compile_options(hpcoll_test_options INTERFACE -Wall -Wextra -Wpedantic
                             $<$<BOOL:${HPCOLL_WARNINGS_AS_ERRORS}>:-Werror>
                             $<$<CONFIG:Release,RelWithDebInfo,MinSizeRel>:${HPCOLL_TEST_OPTIMIZATION}>)
    endif()
    target_include_directories(hpcoll_test_options INTERFACE "${_HPCOLL_ROOT_DIR}/tests")
    target_link_libraries(hpcoll_test_options INTERFACE hpcoll::hpcoll $<TARGET_NAME_IF_EXISTS:hpcoll::decisions>
                          doctest::doctest)
  endif()
  if(NOT TARGET hpcoll_test_main)
    add_library(hpcoll_test_main OBJECT "${HPCOLL_TEST_SUPPORT_DIR}/mpi_doctest_main.cpp")
    target_link_libraries(hpcoll_test_main PUBLIC hpcoll_test_options)
  endif()
  if(NOT TARGET hpcoll_doctest_main)
    add_library(hpcoll_doctest_main OBJECT "${HPCOLL_TEST_SUPPORT_DIR}/doctest_main.cpp")
    target_link_libraries(hpcoll_doctest_main PUBLIC hpcoll_test_options)
  endif()
endfunction()

# Write `set(<var> [==[<value>]==])` lines: passes arbitrary strings (regexes,
# lists, quotes) to cmake -P scripts without any quoting trouble.
function(_hpcoll_write_params file)
  set(content "")
  set(i 1)
  while(i LESS ARGC)
    math(EXPR j "${i} + 1")
    set(content "${content}set(${ARGV${i}} [==[${ARGV${j}}]==])\n")
    math(EXPR i "${i} + 2")
  endwhile()
  file(WRITE "${file}" "${content}")
endfunction()

# --- hpcoll_mpi_test ------------------------------------------------------------
function(hpcoll_mpi_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;TIMEOUT" "SOURCES;NP;LIBRARIES;LABELS;ARGS")
  if(NOT arg_NAME OR NOT arg_SOURCES OR NOT arg_NP)
    message(FATAL_ERROR "hpcoll_mpi_test: NAME, SOURCES and NP are required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hpcoll_mpi_test(${arg_NAME}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT ${HPCOLL_TEST_DEFAULT_TIMEOUT})
  endif()
  _hpcoll_testing_support_targets()

  set(target test_${arg_NAME})
  add_executable(${target} ${arg_SOURCES})
  target_link_libraries(${target} PRIVATE hpcoll_test_main hpcoll_test_options ${arg_LIBRARIES})

  foreach(np IN LISTS arg_NP)
    if(NOT np MATCHES "^[1-9][0-9]*$")
      message(FATAL_ERROR "hpcoll_mpi_test(${arg_NAME}): bad process count '${np}'")
    endif()
    hpcoll_mpi_run(NAME ${arg_NAME}.np${np} TARGET ${target} NP ${np} TIMEOUT ${arg_TIMEOUT}
                   LABELS ${arg_LABELS} ARGS ${arg_ARGS})
  endforeach()
endfunction()

# --- hpcoll_mpi_run ---------------------------------------------------------------
function(hpcoll_mpi_run)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;TARGET;NP;TIMEOUT" "ARGS;MPIEXEC_ARGS;ENVIRONMENT;LABELS")
  if(NOT arg_NAME OR NOT arg_TARGET OR NOT arg_NP)
    message(FATAL_ERROR "hpcoll_mpi_run: NAME, TARGET and NP are required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hpcoll_mpi_run(${arg_NAME}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT ${HPCOLL_TEST_DEFAULT_TIMEOUT})
  endif()
  add_test(NAME ${arg_NAME}
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${arg_NP} ${HPCOLL_MPIEXEC_FLAGS} ${arg_MPIEXEC_ARGS}
            ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${arg_TARGET}> ${MPIEXEC_POSTFLAGS} ${arg_ARGS})
  # hpcoll_mpi_programs: every program an MPI run starts (a build of the MPI tests alone).
  if(NOT TARGET hpcoll_mpi_programs)
    add_custom_target(hpcoll_mpi_programs)
  endif()
  add_dependencies(hpcoll_mpi_programs ${arg_TARGET})
  set(labels mpi ${arg_LABELS})
  set(environment ${HPCOLL_MPIEXEC_ENV} ${arg_ENVIRONMENT})
  set_tests_properties(${arg_NAME} PROPERTIES TIMEOUT ${arg_TIMEOUT} LABELS "${labels}" ENVIRONMENT "${environment}")
  if(HPCOLL_MPI_FAIL_REGEX)
    set_tests_properties(${arg_NAME} PROPERTIES FAIL_REGULAR_EXPRESSION "${HPCOLL_MPI_FAIL_REGEX}")
  endif()
endfunction()

# --- hpcoll_program_test -----------------------------------------------------------
function(hpcoll_program_test)
  cmake_parse_arguments(PARSE_ARGV 0 program "" "NAME;TARGET;SCRIPT;NP;TIMEOUT" "ARGS;PASS;ENVIRONMENT")
  if(NOT program_NAME OR NOT program_TARGET OR NOT program_SCRIPT OR NOT program_NP)
    message(FATAL_ERROR "hpcoll_program_test: NAME, TARGET, SCRIPT and NP are required")
  endif()
  if(NOT program_TIMEOUT)
    set(program_TIMEOUT ${HPCOLL_TEST_DEFAULT_TIMEOUT})
  endif()
  set(content
"set(COMMAND [==[${MPIEXEC_EXECUTABLE};${MPIEXEC_NUMPROC_FLAG};${program_NP};${HPCOLL_MPIEXEC_FLAGS};${MPIEXEC_PREFLAGS};$<TARGET_FILE:${program_TARGET}>;${MPIEXEC_POSTFLAGS};${program_ARGS}]==])
set(NP [==[${program_NP}]==])
")
  foreach(variable IN LISTS program_PASS)
    string(APPEND content "set(${variable} [==[${arg_${variable}}]==])\n")
  endforeach()
  set(params "${CMAKE_CURRENT_BINARY_DIR}/params/${program_NAME}.$<CONFIG>.cmake")
  file(GENERATE OUTPUT "${params}" CONTENT "${content}")
  add_test(NAME ${program_NAME} COMMAND ${CMAKE_COMMAND} "-DPARAMS=${params}" -P "${program_SCRIPT}")
  set(environment ${HPCOLL_MPIEXEC_ENV} ${program_ENVIRONMENT})
  set_tests_properties(${program_NAME} PROPERTIES TIMEOUT ${program_TIMEOUT} LABELS mpi ENVIRONMENT "${environment}")
  if(HPCOLL_MPI_FAIL_REGEX)
    set_tests_properties(${program_NAME} PROPERTIES FAIL_REGULAR_EXPRESSION "${HPCOLL_MPI_FAIL_REGEX}")
  endif()
endfunction()

# --- hpcoll_test ------------------------------------------------------------------
function(hpcoll_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "UNSANITIZED" "NAME;TIMEOUT;COST" "SOURCES;LIBRARIES")
  if(NOT arg_NAME OR NOT arg_SOURCES)
    message(FATAL_ERROR "hpcoll_test: NAME and SOURCES are required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hpcoll_test(${arg_NAME}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT ${HPCOLL_TEST_DEFAULT_TIMEOUT})
  endif()
  _hpcoll_testing_support_targets()

  set(target test_${arg_NAME})
  add_executable(${target} ${arg_SOURCES})
  target_link_libraries(${target} PRIVATE hpcoll_doctest_main hpcoll_test_options ${arg_LIBRARIES})
  if(arg_UNSANITIZED AND HPCOLL_SANITIZE)
    # No tests from it: doctest_discover_tests would add a failing
    # <target>_NOT_BUILT test for a program not built.
    set_target_properties(${target} PROPERTIES EXCLUDE_FROM_ALL TRUE)
    return()
  endif()
  # The ctest names are the doctest names ("verify.bcast"), so ctest -j
  # spreads a long suite over the cores. (PROPERTIES reach every test as a
  # flat list: one label only.)
  set(cost "")
  if(arg_COST)
    set(cost COST ${arg_COST})
  endif()
  doctest_discover_tests(${target} PROPERTIES TIMEOUT ${arg_TIMEOUT} LABELS unit ${cost})
endfunction()

# --- hpcoll_compile_fail_test ---------------------------------------------------------
function(hpcoll_compile_fail_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;SOURCE;REGEX;TIMEOUT" "LIBRARIES;LABELS")
  if(NOT arg_NAME OR NOT arg_SOURCE OR "${arg_REGEX}" STREQUAL "")
    message(FATAL_ERROR "hpcoll_compile_fail_test: NAME, SOURCE and REGEX are required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hpcoll_compile_fail_test(${arg_NAME}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT ${HPCOLL_TEST_DEFAULT_TIMEOUT})
  endif()
  _hpcoll_testing_support_targets()

  set(target compile_fail_${arg_NAME})
  add_executable(${target} EXCLUDE_FROM_ALL ${arg_SOURCE})
  set_target_properties(${target} PROPERTIES EXCLUDE_FROM_DEFAULT_BUILD TRUE)
  target_link_libraries(${target} PRIVATE hpcoll_test_options ${arg_LIBRARIES})

  # Concurrent builds in one build tree are unsafe: RESOURCE_LOCK serializes them.
  _hpcoll_add_expect_failure(compile_fail.${arg_NAME}
    "${CMAKE_COMMAND};--build;${CMAKE_BINARY_DIR};--target;${target}$<$<BOOL:$<CONFIG>>:;--config;$<CONFIG>>"
    "${arg_REGEX}" "building target ${target}" ${arg_TIMEOUT} "compile-fail;${arg_LABELS}")
  set_tests_properties(compile_fail.${arg_NAME} PROPERTIES RESOURCE_LOCK hpcoll_build_tree)
endfunction()

# --- expect-failure tests ---------------------------------------------------------------
# _hpcoll_add_expect_failure(<test> <command-list> <regex> <what> <timeout> <labels>)
# A ctest case that runs <command-list> (generator expressions allowed) via
# cmake/hpcollExpectFailure.cmake and passes iff the command exits nonzero AND
# its combined output matches <regex>. Arguments travel through a generated
# file, so regexes may contain ; " \ ' etc.
function(_hpcoll_add_expect_failure test command regex what timeout labels)
  set(params "${CMAKE_CURRENT_BINARY_DIR}/expect_failure/${test}.$<CONFIG>.cmake")
  file(GENERATE OUTPUT "${params}" CONTENT
"set(HPCOLL_CHECK_COMMAND [==[${command}]==])
set(HPCOLL_CHECK_REGEX [==[${regex}]==])
set(HPCOLL_CHECK_WHAT [==[${what}]==])
")
  add_test(NAME ${test}
    COMMAND ${CMAKE_COMMAND} "-DHPCOLL_CHECK_PARAMS=${params}"
            -P "${_HPCOLL_CMAKE_DIR}/hpcollExpectFailure.cmake")
  list(REMOVE_ITEM labels "")
  set_tests_properties(${test} PROPERTIES
    TIMEOUT ${timeout}
    LABELS "${labels}"
    ENVIRONMENT "${HPCOLL_MPIEXEC_ENV}")
endfunction()

# hpcoll_expect_failure_test(NAME <test> COMMAND <cmd>... REGEX <regex>
#                            [TIMEOUT <s>] [LABELS <l>...])
function(hpcoll_expect_failure_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;REGEX;TIMEOUT" "COMMAND;LABELS")
  if(NOT arg_NAME OR NOT arg_COMMAND OR "${arg_REGEX}" STREQUAL "")
    message(FATAL_ERROR "hpcoll_expect_failure_test: NAME, COMMAND and REGEX are required")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT ${HPCOLL_TEST_DEFAULT_TIMEOUT})
  endif()
  _hpcoll_add_expect_failure(${arg_NAME} "${arg_COMMAND}" "${arg_REGEX}" "${arg_NAME}"
                             ${arg_TIMEOUT} "${arg_LABELS}")
endfunction()

# --- hpcoll_header_checks -------------------------------------------------------------
function(hpcoll_header_checks)
  set(include_dir "${_HPCOLL_ROOT_DIR}/include")
  file(GLOB_RECURSE headers CONFIGURE_DEPENDS RELATIVE "${include_dir}" "${include_dir}/hpcoll/*.hpp")
  file(GLOB_RECURSE old_paths CONFIGURE_DEPENDS RELATIVE "${include_dir}/hpcoll-compat"
       "${include_dir}/hpcoll-compat/hpcoll/*.hpp")
  set(sources "")
  foreach(header IN LISTS headers)
    string(MAKE_C_IDENTIFIER "${header}" name)
    set(source "${CMAKE_CURRENT_BINARY_DIR}/headers/${name}.cpp")
    # Twice: the second inclusion must be a no-op (#pragma once).
    file(CONFIGURE OUTPUT "${source}" CONTENT "#include <${header}>\n#include <${header}>\n" @ONLY)
    list(APPEND sources "${source}")
  endforeach()
  # The old paths only forward to headers checked alone above: one translation
  # unit takes them all (26 compiled alone took 72 s of the check's ~190 s).
  set(old_path_includes "")
  foreach(header IN LISTS old_paths)
    string(APPEND old_path_includes "#include <${header}>\n#include <${header}>\n")
  endforeach()
  if(old_paths)
    set(source "${CMAKE_CURRENT_BINARY_DIR}/headers/old_paths.cpp")
    file(CONFIGURE OUTPUT "${source}" CONTENT "${old_path_includes}" @ONLY)
    list(APPEND sources "${source}")
  endif()
  add_library(hpcoll_header_check OBJECT EXCLUDE_FROM_ALL ${sources})
  target_link_libraries(hpcoll_header_check PRIVATE hpcoll::hpcoll)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    # -O0: the check is that each header compiles alone, not how fast its code runs.
    target_compile_options(hpcoll_header_check PRIVATE -O0 -Wall -Wextra -Wpedantic -Werror)
  endif()
  add_test(NAME headers.self_contained
    COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target hpcoll_header_check)
  set_tests_properties(headers.self_contained PROPERTIES
    TIMEOUT 900 LABELS "compile" RESOURCE_LOCK hpcoll_build_tree COST 120)

  file(GLOB_RECURSE absolute CONFIGURE_DEPENDS "${include_dir}/hpcoll/*.hpp")
  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/layering.stamp")
  add_custom_command(OUTPUT "${stamp}"
    COMMAND ${CMAKE_COMMAND} "-DHPCOLL_INCLUDE_DIR=${include_dir}/hpcoll" "-DHPCOLL_STAMP=${stamp}"
            -P "${_HPCOLL_CMAKE_DIR}/hpcollLayers.cmake"
    DEPENDS ${absolute} "${_HPCOLL_CMAKE_DIR}/hpcollLayers.cmake"
    COMMENT "Checking the include layering of include/hpcoll")
  add_custom_target(hpcoll_layering ALL DEPENDS "${stamp}")
endfunction()

# --- hpcoll_package_test -------------------------------------------------------------
function(hpcoll_package_test)
  set(params "${CMAKE_CURRENT_BINARY_DIR}/package_test.params.cmake")
  _hpcoll_write_params("${params}"
    PKG_BUILD_TREE "${CMAKE_BINARY_DIR}"
    PKG_HPCOLL_SOURCE_DIR "${_HPCOLL_ROOT_DIR}"
    PKG_SOURCE_DIR "${_HPCOLL_ROOT_DIR}/tests/package"
    PKG_WORK_DIR "${CMAKE_BINARY_DIR}/pkgtest"
    PKG_GENERATOR "${CMAKE_GENERATOR}"
    PKG_CXX_COMPILER "${CMAKE_CXX_COMPILER}"
    PKG_PKGCONFIGDIR "${HPCOLL_INSTALL_PKGCONFIGDIR}"
    PKG_MPICXX "${MPI_CXX_COMPILER}"
    PKG_MPIEXEC "${MPIEXEC_EXECUTABLE}"
    PKG_MPIEXEC_NUMPROC_FLAG "${MPIEXEC_NUMPROC_FLAG}"
    PKG_MPIEXEC_FLAGS "${HPCOLL_MPIEXEC_FLAGS}"
    PKG_NP "2")
  foreach(way IN ITEMS find_package add_subdirectory FetchContent pkg-config)
    add_test(NAME package.${way}
      COMMAND ${CMAKE_COMMAND} -DPKG_PARAMS=${params} -DPKG_WAY=${way} -DPKG_CONFIG=$<CONFIG>
              -P "${_HPCOLL_CMAKE_DIR}/hpcollPackageTest.cmake")
    set_tests_properties(package.${way} PROPERTIES
      TIMEOUT 600
      COST 20
      LABELS "package;mpi"
      ENVIRONMENT "${HPCOLL_MPIEXEC_ENV}")
  endforeach()
  # Installing reads the build tree, which the header and compile-fail checks build in.
  set_tests_properties(package.find_package package.pkg-config PROPERTIES RESOURCE_LOCK hpcoll_build_tree)
endfunction()

# --- hpcoll_cluster_test ------------------------------------------------------------
# hpcoll_cluster_test(NAME n TARGET t HOSTS h PPN k [ARGS ...] [TIMEOUT s] [LABELS ...])
# runs the MPI test executable TARGET on the emulated cluster (scripts/cluster.sh;
# docs/hierarchy.md, "Emulated cluster"): h hosts (network namespaces) x k ranks,
# TCP between hosts, shared memory inside. The test makes its own cluster (cluster
# ctest, subnet 10.77.99) and removes it; the cluster tests hold one lock, so
# ctest -j runs them one at a time. Without root or iproute2, or with another MPI than
# Open MPI, it is SKIPPED and says why.
function(hpcoll_cluster_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;TARGET;HOSTS;PPN;TIMEOUT" "ARGS;LABELS")
  if(NOT arg_NAME OR NOT arg_TARGET OR NOT arg_HOSTS OR NOT arg_PPN)
    message(FATAL_ERROR "hpcoll_cluster_test: NAME, TARGET, HOSTS and PPN are required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hpcoll_cluster_test(${arg_NAME}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT ${HPCOLL_TEST_DEFAULT_TIMEOUT})
  endif()
  if(NOT HPCOLL_MPIEXEC_IS_OPENMPI)  # the cluster launches Open MPI's orted into the hosts
    add_test(NAME ${arg_NAME} COMMAND ${CMAKE_COMMAND} -E echo
      "SKIPPED: the emulated cluster launches Open MPI; this build's MPI is another")
    set_tests_properties(${arg_NAME} PROPERTIES LABELS "mpi;cluster;${arg_LABELS}" SKIP_REGULAR_EXPRESSION "SKIPPED: ")
    return()
  endif()
  add_test(NAME ${arg_NAME}
    COMMAND "${_HPCOLL_ROOT_DIR}/scripts/cluster.sh" test ${arg_HOSTS} ${arg_PPN} --name ctest --subnet 10.77.99 --rate none
            -- $<TARGET_FILE:${arg_TARGET}> ${arg_ARGS})
  set_tests_properties(${arg_NAME} PROPERTIES TIMEOUT ${arg_TIMEOUT} LABELS "mpi;cluster;${arg_LABELS}"
    ENVIRONMENT "${HPCOLL_MPIEXEC_ENV}" SKIP_RETURN_CODE 77 RESOURCE_LOCK hpcoll_cluster)
endfunction()
