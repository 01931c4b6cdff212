// What the benchmark programs record about a run: when, and with which MPI.
#pragma once

#include <mpi.h>

#include <ctime>
#include <string>

namespace hpcoll_bench {

/// The current time in UTC, ISO 8601 ("2026-11-21T21:33:09Z").
inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// The first line of MPI_Get_library_version ("Open MPI v4.1.4, package: ...").
inline std::string mpi_library_version() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string v(version, static_cast<std::size_t>(length));
  if (const auto end = v.find_first_of("\r\n"); end != std::string::npos) v.resize(end);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\0')) v.pop_back();
  return v;
}

}  // namespace hpcoll_bench
