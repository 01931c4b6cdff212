# SPDX-License-Identifier: BSD-3-Clause
# Helpers of the -P scripts that run the programs (generator_files.cmake, peer_checksum.cmake).

# checked_run(<variable> <command>...): runs the command, shown with its output in the test's log;
# it must succeed. Its output (stdout and stderr) in <variable>.
function(checked_run variable)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REPLACE ";" " " shown "${ARGN}")
  message("${shown}\n${out}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "FAIL: exit status ${status}")
  endif()
  set(${variable} "${out}" PARENT_SCOPE)
endfunction()

# checksum_line(<variable> <output>): the line "checksum: reachable=R sum=S max=M" of a run's output.
function(checksum_line variable output)
  if(NOT output MATCHES "checksum: reachable=[0-9]+ sum=[0-9]+ max=[0-9]+")
    message(FATAL_ERROR "FAIL: no checksum line")
  endif()
  set(${variable} "${CMAKE_MATCH_0}" PARENT_SCOPE)
endfunction()
