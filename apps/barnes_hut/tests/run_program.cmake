# SPDX-License-Identifier: BSD-3-Clause
# cmake -DPARAMS=<file> -P run_program.cmake: runs of hpcoll_barnes_hut for ctest
# (barnes_hut_program_test in CMakeLists.txt). The params file sets
#   COMMAND    mpiexec ... hpcoll_barnes_hut, the arguments every run shares (a list)
#   VARIANTS   per run, its further arguments, comma-separated (none: one run)
#   NP         the number of ranks
#   FAILS      TRUE: every run must exit non-zero; else 0
#   REGEX      regexes every run's output (stdout and stderr) must match
#   PER_RANK   TRUE: each REGEX exactly NP times, once per rank
#   REFERENCE  a file: every run's positions-hash must be the one in it
#   WRITE_REFERENCE  a file: the runs' positions-hash (all the same) is written to it
#   FILES      files the runs must have written (each removed before the runs)
cmake_minimum_required(VERSION 3.21)
include("${PARAMS}")
include("${CMAKE_CURRENT_LIST_DIR}/../../../cmake/hpcollRunProgram.cmake")

foreach(file IN LISTS FILES)
  file(REMOVE "${file}")
endforeach()
set(expected "")
if(REFERENCE)
  if(NOT EXISTS "${REFERENCE}")
    message(FATAL_ERROR "FAIL: ${REFERENCE} is missing (the test barnes_hut.reference writes it)")
  endif()
  file(READ "${REFERENCE}" expected)
  string(STRIP "${expected}" expected)
endif()

if(VARIANTS STREQUAL "")
  set(VARIANTS "none")
endif()
foreach(variant IN LISTS VARIANTS)
  set(arguments "")
  if(NOT variant STREQUAL "none")
    string(REPLACE "," ";" arguments "${variant}")
  endif()
  hpcoll_run_checked(${arguments})
  if(REFERENCE OR WRITE_REFERENCE)
    if(NOT output MATCHES "positions-hash: ([0-9a-f]+)\n")
      message(FATAL_ERROR "FAIL: no line 'positions-hash: H'")
    endif()
    if(expected STREQUAL "")
      set(expected "${CMAKE_MATCH_1}")
    elseif(NOT CMAKE_MATCH_1 STREQUAL expected)
      message(FATAL_ERROR "FAIL: positions-hash ${CMAKE_MATCH_1}, not ${expected} as the reference run's")
    endif()
  endif()
endforeach()
foreach(file IN LISTS FILES)
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "FAIL: ${file} was not written")
  endif()
endforeach()
if(WRITE_REFERENCE)
  file(WRITE "${WRITE_REFERENCE}" "${expected}\n")
endif()
message("PASS")
