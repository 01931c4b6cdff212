# SPDX-License-Identifier: BSD-3-Clause
# Included by the applications' ctest scripts (apps/*/tests/run_program.cmake, run with cmake -P).
#
#   hpcoll_run_checked([<argument>...])
#       Runs ${COMMAND} <argument>... (mpiexec ... program ...), prints the command and its output
#       (stdout and stderr, left in the variable `output`), and fails the test (FATAL_ERROR
#       "FAIL: ...") unless it exits 0 (non-zero where FAILS is true) and the output matches every
#       regex of the list REGEX (where PER_RANK is true: exactly NP times, once per rank).
include_guard(GLOBAL)

macro(hpcoll_run_checked)
  execute_process(COMMAND ${COMMAND} ${ARGN} RESULT_VARIABLE _hpcoll_status OUTPUT_VARIABLE output
                  ERROR_VARIABLE output)
  string(REPLACE ";" " " _hpcoll_shown "${COMMAND};${ARGN}")
  message("${_hpcoll_shown}\n${output}")
  if(FAILS AND _hpcoll_status EQUAL 0)
    message(FATAL_ERROR "FAIL: the run succeeded; it should have failed")
  elseif(NOT FAILS AND NOT _hpcoll_status EQUAL 0)
    message(FATAL_ERROR "FAIL: the run exited with ${_hpcoll_status}")
  endif()
  foreach(_hpcoll_regex IN LISTS REGEX)
    string(REGEX MATCHALL "${_hpcoll_regex}" _hpcoll_matches "${output}")
    list(LENGTH _hpcoll_matches _hpcoll_count)
    if(PER_RANK AND NOT _hpcoll_count EQUAL NP)
      message(FATAL_ERROR "FAIL: '${_hpcoll_regex}' is printed ${_hpcoll_count} times, not once by each of ${NP} ranks")
    elseif(_hpcoll_count EQUAL 0)
      message(FATAL_ERROR "FAIL: nothing matches '${_hpcoll_regex}'")
    endif()
  endforeach()
endmacro()
