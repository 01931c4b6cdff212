# SPDX-License-Identifier: BSD-3-Clause
# cmake -DPKG_PARAMS=<file> -DPKG_WAY=<way> [-DPKG_CONFIG=<cfg>] -P hpcollPackageTest.cmake
#
# Builds the consumer in tests/package in <work>/<way> and runs it under mpiexec:
#   find_package      cmake --install <build tree> --prefix <work>/find_package/prefix, then
#                     the CMake project against it (find_package(hpcoll 0.2 REQUIRED))
#   add_subdirectory  the CMake project with hpcoll's source tree as a subdirectory
#   FetchContent      the CMake project with hpcoll's source tree through FetchContent
#   pkg-config        cmake --install as for find_package, then the plain Makefile against it
#                     (PKG_CONFIG_PATH=<prefix>/<pkgconfig dir>, the MPI compiler wrapper)
cmake_minimum_required(VERSION 3.21)

if(NOT PKG_PARAMS OR NOT EXISTS "${PKG_PARAMS}")
  message(FATAL_ERROR "hpcollPackageTest: params file '${PKG_PARAMS}' missing")
endif()
include("${PKG_PARAMS}")

set(work "${PKG_WORK_DIR}/${PKG_WAY}")
set(prefix "${work}/prefix")
set(build "${work}/build")
file(REMOVE_RECURSE "${work}")

function(step what)
  string(REPLACE ";" " " pretty "${ARGN}")
  message(STATUS "[package ${PKG_WAY}] ${what}: ${pretty}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "[package ${PKG_WAY}] ${what} failed (${rc})")
  endif()
endfunction()

set(config_args "")
if(PKG_CONFIG)
  set(config_args --config "${PKG_CONFIG}")
endif()
# The consumer compiles without optimisation (no build type; CXXFLAGS=-O0 for
# the Makefile): what is checked is how it finds, includes and links hpcoll,
# and at -O3 its one file took 28 of each test's 31 s.

if(PKG_WAY STREQUAL "find_package" OR PKG_WAY STREQUAL "pkg-config")
  step("install" "${CMAKE_COMMAND}" --install "${PKG_BUILD_TREE}" --prefix "${prefix}" ${config_args})
endif()

if(PKG_WAY STREQUAL "pkg-config")
  cmake_path(ABSOLUTE_PATH PKG_PKGCONFIGDIR BASE_DIRECTORY "${prefix}" OUTPUT_VARIABLE pc_path)
  file(MAKE_DIRECTORY "${build}")
  step("build" "${CMAKE_COMMAND}" -E env "PKG_CONFIG_PATH=${pc_path}"
       make -C "${build}" -f "${PKG_SOURCE_DIR}/Makefile" "MPICXX=${PKG_MPICXX}" CXXFLAGS=-O0)
else()
  if(PKG_WAY STREQUAL "find_package")
    set(way_args "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  elseif(PKG_WAY STREQUAL "add_subdirectory" OR PKG_WAY STREQUAL "FetchContent")
    set(way_args "-DHPCOLL_SOURCE_DIR=${PKG_HPCOLL_SOURCE_DIR}")
  else()
    message(FATAL_ERROR "hpcollPackageTest: unknown PKG_WAY '${PKG_WAY}'")
  endif()
  step("configure" "${CMAKE_COMMAND}" -S "${PKG_SOURCE_DIR}" -B "${build}"
       -G "${PKG_GENERATOR}"
       "-DCMAKE_CXX_COMPILER=${PKG_CXX_COMPILER}"
       -DCMAKE_BUILD_TYPE=
       "-DMPIEXEC_EXECUTABLE=${PKG_MPIEXEC}"
       "-DHPCOLL_CONSUME=${PKG_WAY}"
       ${way_args})
  step("build" "${CMAKE_COMMAND}" --build "${build}" ${config_args})
endif()

# Locate the executable (single- or multi-config layout).
set(exe "")
foreach(candidate "${build}/hpcoll_package_test" "${build}/${PKG_CONFIG}/hpcoll_package_test"
                  "${build}/hpcoll_package_test.exe" "${build}/${PKG_CONFIG}/hpcoll_package_test.exe")
  if(EXISTS "${candidate}" AND NOT IS_DIRECTORY "${candidate}")
    set(exe "${candidate}")
    break()
  endif()
endforeach()
if(NOT exe)
  message(FATAL_ERROR "[package ${PKG_WAY}] built executable hpcoll_package_test not found under ${build}")
endif()

step("run" "${PKG_MPIEXEC}" ${PKG_MPIEXEC_NUMPROC_FLAG} ${PKG_NP} ${PKG_MPIEXEC_FLAGS} "${exe}")
message(STATUS "[package ${PKG_WAY}] PASS: the consumer built and ran with ${PKG_NP} ranks")
