# SPDX-License-Identifier: BSD-3-Clause
# cmake -DHPCOLL_INCLUDE_DIR=<include/hpcoll> [-DHPCOLL_STAMP=<file>] -P hpcollLayers.cmake
#
# The layers of include/hpcoll and what each may include (docs/architecture.md):
#
#   core         error, environment, mpi_call, insert_only_map, communicator, op, datatype, policies, boost_mpi, version
#   plan/        the vocabulary: plans, shapes, combinators, rank arithmetic, machine parameters
#   schedule/    the schedules
#   select/      how a schedule is chosen: traits, policies, automatic, cost model, machine file, tuning
#   exec/        running plans: executor, operations, progress engines, counters
#   analysis/    running plans without MPI: verifier, simulator
#   requests     request.hpp, progress.hpp: handles of nonblocking collectives
#   entry/       the skeleton of every collective entry point
#   collectives/ the collectives
#   mcast/       the dynamic multicast
#   umbrella     hpcoll.hpp (everything but analysis)
#
# A header may include its own layer and the layers listed for it below; a
# layer never includes a higher one. One rule more keeps the named-schedule
# path light: entry/ and collectives/ take only policy.hpp from select/ (the
# dispatcher, the cost model and the file readers come with
# select/automatic.hpp). Any other include of the library is a failure that
# names the file, the line and the rule.
cmake_minimum_required(VERSION 3.21)

get_filename_component(HPCOLL_INCLUDE_DIR "${HPCOLL_INCLUDE_DIR}" ABSOLUTE)
if(NOT IS_DIRECTORY "${HPCOLL_INCLUDE_DIR}")
  message(FATAL_ERROR "hpcollLayers: HPCOLL_INCLUDE_DIR '${HPCOLL_INCLUDE_DIR}' is not a directory")
endif()

set(core_files error environment mpi_call insert_only_map communicator op datatype policies boost_mpi version)
set(allowed_core core)
set(allowed_plan plan core)
set(allowed_schedule schedule plan core)
set(allowed_select select schedule plan core)
set(allowed_exec exec plan core)
set(allowed_analysis analysis schedule plan core)
set(allowed_requests requests exec plan core)
set(allowed_entry entry select exec requests schedule plan core)
set(allowed_collectives collectives entry select exec requests schedule plan core)
set(allowed_mcast mcast entry select exec requests analysis schedule plan core)
set(allowed_umbrella umbrella collectives mcast entry select exec requests schedule plan core)

# The layer of a path relative to include/hpcoll (empty: not a library header).
function(layer_of path out)
  cmake_path(GET path PARENT_PATH folder)
  cmake_path(GET path STEM stem)
  if(folder STREQUAL "")
    if(stem IN_LIST core_files)
      set(layer core)
    elseif(stem STREQUAL "request" OR stem STREQUAL "progress")
      set(layer requests)
    elseif(stem STREQUAL "hpcoll")
      set(layer umbrella)
    else()
      set(layer "")
    endif()
  elseif(folder MATCHES "^(plan|schedule|select|exec|analysis|entry|collectives|mcast)$")
    set(layer "${folder}")
  else()
    set(layer "")
  endif()
  set(${out} "${layer}" PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE headers RELATIVE "${HPCOLL_INCLUDE_DIR}" "${HPCOLL_INCLUDE_DIR}/*.hpp")
list(SORT headers)
set(problems "")
foreach(header IN LISTS headers)
  layer_of("${header}" layer)
  if(layer STREQUAL "")
    string(APPEND problems "\n  ${header}: in no layer (see cmake/hpcollLayers.cmake)")
    continue()
  endif()
  file(STRINGS "${HPCOLL_INCLUDE_DIR}/${header}" lines)
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*<hpcoll/")
      string(APPEND problems "\n  ${header}:${number}: includes the library with <...>; library headers include each other with \"...\"")
      continue()
    endif()
    if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\"")
      continue()
    endif()
    set(target "${CMAKE_MATCH_1}")
    cmake_path(GET header PARENT_PATH dir)
    cmake_path(APPEND dir "${target}" OUTPUT_VARIABLE resolved)
    cmake_path(NORMAL_PATH resolved)
    if(NOT EXISTS "${HPCOLL_INCLUDE_DIR}/${resolved}")
      string(APPEND problems "\n  ${header}:${number}: includes \"${target}\", which does not exist")
      continue()
    endif()
    layer_of("${resolved}" to)
    if(NOT to IN_LIST allowed_${layer})
      list(JOIN allowed_${layer} ", " may)
      string(APPEND problems "\n  ${header}:${number}: ${layer} includes ${resolved} (${to}); ${layer} may include only: ${may}")
    elseif(layer MATCHES "^(entry|collectives)$" AND to STREQUAL "select" AND NOT resolved STREQUAL "select/policy.hpp")
      string(APPEND problems "\n  ${header}:${number}: ${layer} includes ${resolved}; the named-schedule path takes only select/policy.hpp from select/")
    endif()
  endforeach()
endforeach()

if(NOT problems STREQUAL "")
  message(FATAL_ERROR "hpcoll: include layering violated:${problems}")
endif()
list(LENGTH headers count)
message(STATUS "hpcoll: include layering holds for ${count} headers")
if(HPCOLL_STAMP)
  file(WRITE "${HPCOLL_STAMP}" "${count}\n")
endif()
