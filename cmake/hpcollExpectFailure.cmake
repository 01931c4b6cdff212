# SPDX-License-Identifier: BSD-3-Clause
# cmake -DHPCOLL_CHECK_PARAMS=<file> -P hpcollExpectFailure.cmake
#
# Runs HPCOLL_CHECK_COMMAND (a list) and succeeds only if it exits nonzero AND
# its combined stdout+stderr matches HPCOLL_CHECK_REGEX. Used for compile-fail
# tests (the command builds a target that must not compile, e.g. because of a
# static_assert) and for the harness' failure-propagation self-test.
# The params file sets HPCOLL_CHECK_COMMAND, HPCOLL_CHECK_REGEX, HPCOLL_CHECK_WHAT.
cmake_minimum_required(VERSION 3.21)

if(NOT HPCOLL_CHECK_PARAMS OR NOT EXISTS "${HPCOLL_CHECK_PARAMS}")
  message(FATAL_ERROR "hpcollExpectFailure: params file '${HPCOLL_CHECK_PARAMS}' missing")
endif()
include("${HPCOLL_CHECK_PARAMS}")
if(NOT HPCOLL_CHECK_COMMAND OR "${HPCOLL_CHECK_REGEX}" STREQUAL "")
  message(FATAL_ERROR "hpcollExpectFailure: HPCOLL_CHECK_COMMAND/HPCOLL_CHECK_REGEX not set")
endif()

string(REPLACE ";" " " pretty "${HPCOLL_CHECK_COMMAND}")
message(STATUS "expect failure: ${pretty}")
execute_process(
  COMMAND ${HPCOLL_CHECK_COMMAND}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE out)   # same variable: stdout and stderr merged

if(rc EQUAL 0)
  message("${out}")
  message(FATAL_ERROR "FAIL: ${HPCOLL_CHECK_WHAT} succeeded, but it was expected to fail "
                      "with output matching: ${HPCOLL_CHECK_REGEX}")
endif()
if(NOT out MATCHES "${HPCOLL_CHECK_REGEX}")
  message("${out}")
  message(FATAL_ERROR "FAIL: ${HPCOLL_CHECK_WHAT} failed (${rc}) as expected, but its output "
                      "does not match: ${HPCOLL_CHECK_REGEX}")
endif()
message(STATUS "PASS: ${HPCOLL_CHECK_WHAT} failed (${rc}) as expected; matched: ${CMAKE_MATCH_0}")
