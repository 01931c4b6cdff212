# SPDX-License-Identifier: BSD-3-Clause
# cmake -DPARAMS=<file> -P peer_checksum.cmake: a peer of hpcoll_dijkstra
# (peers/: Boost.Graph's Dijkstra, the Parallel BGL's delta-stepping) against
# hpcoll_dijkstra's sequential solver, for ctest (dijkstra_peer_test in
# CMakeLists.txt). The params file sets
#   REFERENCE   mpiexec -n 1 ... hpcoll_dijkstra (a list)
#   PEER        the peer's command, under mpiexec for the Parallel BGL (a list)
#   GRAPH       the graph options both get (a list: --generate N --seed K, or --graph FILE)
#   SOURCES     the source vertices: per source, the two must print the same checksum line
#   NEEDS_FILE  a file the runs read: when absent, "SKIPPED: ..." and no run
#   SKIP        when set, the reason the peer was not built: "SKIPPED: <reason>" and no run
cmake_minimum_required(VERSION 3.21)
include("${PARAMS}")
include("${CMAKE_CURRENT_LIST_DIR}/checked_run.cmake")

if(SKIP)
  message("SKIPPED: ${SKIP}")
  return()
endif()
if(NEEDS_FILE AND NOT EXISTS "${NEEDS_FILE}")
  message("SKIPPED: ${NEEDS_FILE} is not present")
  return()
endif()

foreach(source IN LISTS SOURCES)
  checked_run(output ${REFERENCE} ${GRAPH} --source ${source} --solver sequential)
  checksum_line(expected "${output}")
  checked_run(output ${PEER} ${GRAPH} --source ${source})
  checksum_line(got "${output}")
  if(NOT got STREQUAL expected)
    message(FATAL_ERROR "FAIL: source ${source}: the peer printed '${got}', hpcoll_dijkstra's sequential solver "
                        "'${expected}'")
  endif()
endforeach()
message("PASS")
