# SPDX-License-Identifier: BSD-3-Clause
# cmake -DPARAMS=<file> -P run_program.cmake: one run of hpcoll_dijkstra for
# ctest (dijkstra_program_test in CMakeLists.txt). The params file sets
#   COMMAND     mpiexec ... hpcoll_dijkstra <arguments> (a list)
#   NP          the number of ranks
#   FAILS       TRUE: the run must exit non-zero; else it must exit 0
#   REGEX       regexes the output (stdout and stderr) must match
#   PER_RANK    TRUE: each REGEX exactly NP times, once per rank
#   JSON        a JSON file the run wrote: its checksum must be the printed one
#   DISTANCES   a --distances file the run wrote: its distances must add up to the printed checksum
#   NEEDS_FILE  a file the run reads: when absent, "SKIPPED: ..." and no run
cmake_minimum_required(VERSION 3.21)
include("${PARAMS}")
include("${CMAKE_CURRENT_LIST_DIR}/../../../cmake/hpcollRunProgram.cmake")

if(NEEDS_FILE AND NOT EXISTS "${NEEDS_FILE}")
  message("SKIPPED: ${NEEDS_FILE} is not present")
  return()
endif()
foreach(written IN ITEMS ${JSON} ${DISTANCES})
  file(REMOVE "${written}")
endforeach()

hpcoll_run_checked()

if(JSON OR DISTANCES)
  if(NOT output MATCHES "checksum: reachable=([0-9]+) sum=([0-9]+) max=([0-9]+)")
    message(FATAL_ERROR "FAIL: no checksum line")
  endif()
  set(printed ${CMAKE_MATCH_1} ${CMAKE_MATCH_2} ${CMAKE_MATCH_3})
endif()
if(JSON)
  file(READ "${JSON}" text)
  set(written "")
  foreach(key reachable sum max)
    string(JSON value ERROR_VARIABLE problem GET "${text}" checksum ${key})
    if(problem)
      message(FATAL_ERROR "FAIL: ${JSON}: ${problem}")
    endif()
    list(APPEND written ${value})
  endforeach()
  if(NOT written STREQUAL printed)
    message(FATAL_ERROR "FAIL: ${JSON} has the checksum ${written}, the run printed ${printed}")
  endif()
endif()
if(DISTANCES)
  file(STRINGS "${DISTANCES}" lines)
  set(reachable 0)
  set(sum 0)
  set(max 0)
  foreach(d IN LISTS lines)
    if(NOT d STREQUAL "inf")
      math(EXPR reachable "${reachable} + 1")
      math(EXPR sum "${sum} + ${d}")
      if(d GREATER max)
        set(max ${d})
      endif()
    endif()
  endforeach()
  if(NOT "${reachable};${sum};${max}" STREQUAL "${printed}")
    message(FATAL_ERROR "FAIL: ${DISTANCES} adds up to ${reachable};${sum};${max}, the run printed ${printed}")
  endif()
endif()
message("PASS")
