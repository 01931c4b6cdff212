# SPDX-License-Identifier: BSD-3-Clause
# Runs COMMAND (a list, from the PARAMS file); passes when it exits 0 and its
# output (stdout and stderr) matches every regular expression of EXPECT.
include("${PARAMS}")
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
message("${output}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the program exited with ${status}")
endif()
foreach(expected IN LISTS EXPECT)
  if(NOT output MATCHES "${expected}")
    message(FATAL_ERROR "the output does not match: ${expected}")
  endif()
endforeach()
