# cmake -DPKG_PARAMS=<file> [-DPKG_CONFIG=<cfg>] -P hpcollPackageTest.cmake
#
# 1. cmake --install <build tree> --prefix <work>/prefix
# 2. configure + build tests/package (find_package(hpcoll REQUIRED)) against it
# 3. run the result under mpiexec
cmake_minimum_required(VERSION 3.21)

if(NOT PKG_PARAMS OR NOT EXISTS "${PKG_PARAMS}")
  message(FATAL_ERROR "hpcollPackageTest: params file '${PKG_PARAMS}' missing")
endif()
include("${PKG_PARAMS}")

set(prefix "${PKG_WORK_DIR}/prefix")
set(build "${PKG_WORK_DIR}/build")
file(REMOVE_RECURSE "${prefix}" "${build}")

function(step what)
  string(REPLACE ";" " " pretty "${ARGN}")
  message(STATUS "[package] ${what}: ${pretty}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "[package] ${what} failed (${rc})")
  endif()
endfunction()

set(config_args "")
if(PKG_CONFIG)
  set(config_args --config "${PKG_CONFIG}")
endif()
set(build_type "${PKG_BUILD_TYPE}")
if(NOT build_type)
  set(build_type "${PKG_CONFIG}")
endif()

step("install" "${CMAKE_COMMAND}" --install "${PKG_BUILD_TREE}" --prefix "${prefix}" ${config_args})

step("configure" "${CMAKE_COMMAND}" -S "${PKG_SOURCE_DIR}" -B "${build}"
     -G "${PKG_GENERATOR}"
     "-DCMAKE_CXX_COMPILER=${PKG_CXX_COMPILER}"
     "-DCMAKE_BUILD_TYPE=${build_type}"
     "-DCMAKE_PREFIX_PATH=${prefix}"
     -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
     "-DMPIEXEC_EXECUTABLE=${PKG_MPIEXEC}")

step("build" "${CMAKE_COMMAND}" --build "${build}" ${config_args})

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
  message(FATAL_ERROR "[package] built executable hpcoll_package_test not found under ${build}")
endif()

step("run" "${PKG_MPIEXEC}" ${PKG_MPIEXEC_NUMPROC_FLAG} ${PKG_NP} ${PKG_MPIEXEC_FLAGS} "${exe}")
message(STATUS "[package] PASS: find_package(hpcoll) consumer built and ran with ${PKG_NP} ranks")
