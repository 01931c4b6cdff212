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

/// The error of an MPI routine that returned `code`: the routine and MPI_Error_string.
inline error mpi_failure(int code, const char* routine) {
  return error("", "", std::string(routine) + " failed: " + mpi_error_string(code), code);
}

/// Throws mpi_failure when an MPI call does not return MPI_SUCCESS. Library
/// communicators use MPI_ERRORS_RETURN, so failures arrive here instead of aborting.
inline void check_mpi(int code, const char* routine) {
  if (code != MPI_SUCCESS) [[unlikely]]
    throw mpi_failure(code, routine);
}

/// Whether a completed receive got an empty message. Read straight from the
/// status where the MPI library's header shows how it keeps the byte count
/// (Open MPI, MPICH: a per-message check on the hot path, where
/// MPI_Get_count's argument checks and division cost several ns);
/// MPI_Get_count elsewhere.
inline bool received_nothing(const MPI_Status& status, [[maybe_unused]] MPI_Datatype type) noexcept {
#if defined(OPEN_MPI)
  return status._ucount == 0;
#elif defined(MPICH)
  return status.count_lo == 0 && (status.count_hi_and_cancelled >> 1) == 0;  // bit 0: cancelled
#else
  int count = 0;
  MPI_Get_count(&status, type, &count);
  return count == 0;
#endif
}

}  // namespace hpcoll::detail

/// HPCOLL_MPI(MPI_Isend, buf, n, ...) calls the routine and checks its result.
#define HPCOLL_MPI(routine, ...) ::hpcoll::detail::check_mpi(routine(__VA_ARGS__), #routine)
