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

if(SKIP)
  message("SKIPPED: ${SKIP}")
  return()
endif()
if(NEEDS_FILE AND NOT EXISTS "${NEEDS_FILE}")
  message("SKIPPED: ${NEEDS_FILE} is not present")
  return()
endif()

# checksum_of(<variable> <command>...): runs the command, which must succeed; its checksum line.
function(checksum_of variable)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  string(REPLACE ";" " " shown "${ARGN}")
  message("${shown}\n${output}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "FAIL: exit status ${status}")
  endif()
  if(NOT output MATCHES "checksum: reachable=[0-9]+ sum=[0-9]+ max=[0-9]+")
    message(FATAL_ERROR "FAIL: no checksum line")
  endif()
  set(${variable} "${CMAKE_MATCH_0}" PARENT_SCOPE)
endfunction()

foreach(source IN LISTS SOURCES)
  checksum_of(expected ${REFERENCE} ${GRAPH} --source ${source} --solver sequential)
  checksum_of(got ${PEER} ${GRAPH} --source ${source})
  if(NOT got STREQUAL expected)
    message(FATAL_ERROR "FAIL: source ${source}: the peer printed '${got}', hpcoll_dijkstra's sequential solver "
                        "'${expected}'")
  endif()
endforeach()
message("PASS")
