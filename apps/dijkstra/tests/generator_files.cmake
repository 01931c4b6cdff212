# SPDX-License-Identifier: BSD-3-Clause
# cmake -DPROGRAM=<hpcoll_dijkstra> -DWORK=<folder> -DMPIEXEC=<mpiexec;-n> -DMPIEXEC_FLAGS=<flags>
#       -P generator_files.cmake
# The generator's files: the same seed gives the same file, at any number of
# ranks; another seed gives other arcs; a gzip-compressed file read back gives
# the checksum of the graph it was written from.
cmake_minimum_required(VERSION 3.21)
include("${CMAKE_CURRENT_LIST_DIR}/checked_run.cmake")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# run(<np> <argument>...): the run must succeed; its output in `output`.
function(run np)
  checked_run(out ${MPIEXEC} ${np} ${MPIEXEC_FLAGS} ${PROGRAM} ${ARGN})
  set(output "${out}" PARENT_SCOPE)
endfunction()

run(1 --generate 3000 --seed 5 --write ${WORK}/a.gr --solver none)
run(2 --generate 3000 --seed 5 --write ${WORK}/b.gr --solver none)
run(1 --generate 3000 --seed 6 --write ${WORK}/c.gr --solver none)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/a.gr ${WORK}/b.gr RESULT_VARIABLE differ)
if(differ)
  message(FATAL_ERROR "FAIL: seed 5 gave two different files")
endif()
file(STRINGS ${WORK}/a.gr arcs_a REGEX "^a ")
file(STRINGS ${WORK}/c.gr arcs_c REGEX "^a ")
list(LENGTH arcs_a count)
if(count EQUAL 0 OR arcs_a STREQUAL arcs_c)
  message(FATAL_ERROR "FAIL: seeds 5 and 6 gave the same ${count} arcs")
endif()

run(2 --generate 3000 --seed 5 --write ${WORK}/a.gr.gz --solver delta)
checksum_line(generated "${output}")
file(READ ${WORK}/a.gr.gz magic LIMIT 2 HEX)
if(NOT magic STREQUAL "1f8b")
  message(FATAL_ERROR "FAIL: a.gr.gz is not gzip-compressed (it starts with ${magic})")
endif()
run(3 --graph ${WORK}/a.gr.gz --solver dijkstra --check)
checksum_line(read_back "${output}")
if(NOT read_back STREQUAL generated)
  message(FATAL_ERROR "FAIL: read back from a.gr.gz: ${read_back}; generated: ${generated}")
endif()
message("PASS")
