// SPDX-License-Identifier: BSD-3-Clause
// The one checking wrapper around every MPI call the library makes.
#pragma once

#include <mpi.h>

#include <string>

#include "error.hpp"

namespace hpcoll::detail {

inline std::string mpi_error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "unknown MPI error";
  return std::string(text, static_cast<std::size_t>(length));
}

/// Throws hpcoll::error carrying the routine and MPI_Error_string when an MPI
/// call does not return MPI_SUCCESS. Library communicators use
/// MPI_ERRORS_RETURN, so failures arrive here instead of aborting.
inline void check_mpi(int code, const char* routine) {
  if (code != MPI_SUCCESS) [[unlikely]]
    throw error("", "", std::string(routine) + " failed: " + mpi_error_string(code), code);
}

}  // namespace hpcoll::detail

/// HPCOLL_MPI(MPI_Isend, buf, n, ...) calls the routine and checks its result.
#define HPCOLL_MPI(routine, ...) ::hpcoll::detail::check_mpi(routine(__VA_ARGS__), #routine)
