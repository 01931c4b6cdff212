# SPDX-License-Identifier: BSD-3-Clause
# cmake -DHPCOLL_SOURCE_DIR=<root> -P hpcollLicenseCheck.cmake
#
# Every file of include/, and every C++, C, Fortran, CMake, Python and make
# file and script of the project, opens with its SPDX license identifier: the
# first line, or the second after a #! line. Files that cannot hold a comment (test data,
# JSON) are not looked at. A file without it is a failure that names it.
cmake_minimum_required(VERSION 3.21)

set(license "BSD-3-Clause")
get_filename_component(root "${HPCOLL_SOURCE_DIR}" ABSOLUTE)
if(NOT EXISTS "${root}/LICENSE")
  message(FATAL_ERROR "hpcollLicenseCheck: no LICENSE in HPCOLL_SOURCE_DIR '${root}'")
endif()

set(sources "")
foreach(folder IN ITEMS src tests benchmarks apps cmake)
  file(GLOB_RECURSE found RELATIVE "${root}"
       "${root}/${folder}/*.cpp" "${root}/${folder}/*.hpp" "${root}/${folder}/*.c" "${root}/${folder}/*.f90"
       "${root}/${folder}/*.py"
       "${root}/${folder}/*.cmake" "${root}/${folder}/*.in" "${root}/${folder}/CMakeLists.txt"
       "${root}/${folder}/Makefile")
  list(APPEND sources ${found})
endforeach()
file(GLOB_RECURSE headers RELATIVE "${root}" "${root}/include/*")
list(APPEND sources ${headers} CMakeLists.txt hpcoll .ci/run)
list(SORT sources)

set(missing "")
foreach(source IN LISTS sources)
  if(source MATCHES "\\.(cpp|hpp)$")
    set(expected "// SPDX-License-Identifier: ${license}")
  elseif(source MATCHES "\\.c$")
    set(expected "/* SPDX-License-Identifier: ${license} */")
  elseif(source MATCHES "\\.f90$")
    set(expected "! SPDX-License-Identifier: ${license}")
  else()
    set(expected "# SPDX-License-Identifier: ${license}")
  endif()
  file(READ "${root}/${source}" opening LIMIT 512)
  string(REGEX REPLACE "^#![^\n]*\n" "" opening "${opening}")
  string(FIND "${opening}" "${expected}\n" at)
  if(NOT at EQUAL 0)
    string(REGEX MATCH "^[^\n]*" first "${opening}")
    string(APPEND missing "\n  ${source}: opens with '${first}', not '${expected}'")
  endif()
endforeach()

if(NOT missing STREQUAL "")
  message(FATAL_ERROR "hpcoll: files without their SPDX license identifier:${missing}")
endif()
list(LENGTH sources count)
message(STATUS "hpcoll: ${count} files open with SPDX-License-Identifier: ${license}")
