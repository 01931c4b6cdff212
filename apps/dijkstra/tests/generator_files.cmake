# cmake -DPROGRAM=<hpcoll_dijkstra> -DWORK=<folder> -DMPIEXEC=<mpiexec;-n> -DMPIEXEC_FLAGS=<flags>
#       -P generator_files.cmake
# The generator's files: the same seed gives the same file, at any number of
# ranks; another seed gives other arcs; a gzip-compressed file read back gives
# the checksum of the graph it was written from.
cmake_minimum_required(VERSION 3.21)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# run(<np> <argument>...): the run must succeed; its output in `output`.
function(run np)
  set(command ${MPIEXEC} ${np} ${MPIEXEC_FLAGS} ${PROGRAM} ${ARGN})
  execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REPLACE ";" " " shown "${command}")
  message("${shown}\n${out}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "FAIL: exit status ${status}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

# checksum(<variable>): the checksum line of the last run.
macro(checksum variable)
  if(NOT output MATCHES "checksum: reachable=[0-9]+ sum=[0-9]+ max=[0-9]+")
    message(FATAL_ERROR "FAIL: no checksum line")
  endif()
  set(${variable} "${CMAKE_MATCH_0}")
endmacro()

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
checksum(generated)
file(READ ${WORK}/a.gr.gz magic LIMIT 2 HEX)
if(NOT magic STREQUAL "1f8b")
  message(FATAL_ERROR "FAIL: a.gr.gz is not gzip-compressed (it starts with ${magic})")
endif()
run(3 --graph ${WORK}/a.gr.gz --solver dijkstra --check)
checksum(read_back)
if(NOT read_back STREQUAL generated)
  message(FATAL_ERROR "FAIL: read back from a.gr.gz: ${read_back}; generated: ${generated}")
endif()
message("PASS")
