// SPDX-License-Identifier: BSD-3-Clause
// Checked mode: before any data moves, the ranks of a call agree that they
// make the same call and that none of them found a bad argument.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "../communicator.hpp"
#include "../error.hpp"
#include "../mpi_call.hpp"

namespace hpcoll::detail {

/// What every rank of a call must agree on, compared in checked mode.
struct call_signature {
  std::int64_t root = -1;
  std::int64_t count = 0;  ///< per-rank element count that must match everywhere (or -1: not compared)
  std::int64_t in_place = 0;
};

inline std::int64_t fingerprint(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (char ch : text) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  return static_cast<std::int64_t>(h >> 1);
}

/// One MPI_Allreduce of (value, −value) pairs with MPI_MAX gives every field's
/// maximum and minimum; a field whose minimum and maximum differ is a
/// disagreement. The highest rank with a local argument problem is found the
/// same way. Every rank then raises the same kind of error.
inline void agree(const communicator& c, std::string_view collective, const std::string& schedule,
                  const std::string& local_problem, const call_signature& sig, std::int64_t element_size) {
  constexpr int fields = 6;
  const std::int64_t values[fields] = {fingerprint(collective), fingerprint(schedule), sig.root, sig.count,
                                       sig.in_place, element_size};
  const char* names[fields] = {"the collective", "the schedule", "the root", "the element count",
                               "the in-place form", "the element size"};
  std::int64_t mine[2 * fields + 1];
  for (int i = 0; i < fields; ++i) {
    mine[2 * i] = values[i];
    mine[2 * i + 1] = -values[i];
  }
  mine[2 * fields] = local_problem.empty() ? -1 : c.rank();
  std::int64_t all[2 * fields + 1];
  HPCOLL_MPI(MPI_Allreduce, mine, all, 2 * fields + 1, MPI_INT64_T, MPI_MAX, c.native());
  if (!local_problem.empty()) throw error(collective, schedule, local_problem);
  if (all[2 * fields] >= 0)
    throw error(collective, schedule,
                concat({"rank ", std::to_string(all[2 * fields]), " was called with invalid arguments"}));
  for (int i = 0; i < fields; ++i) {
    const std::int64_t hi = all[2 * i], lo = -all[2 * i + 1];
    if (hi == lo) continue;
    if (i < 2) throw error(collective, schedule, concat({"ranks disagree on ", names[i]}));
    throw error(collective, schedule,
                concat({"ranks disagree on ", names[i], " (values from ", std::to_string(lo), " to ", std::to_string(hi), ")"}));
  }
}

/// The second step for the v-collectives, once ranks agree on the call: a
/// problem one rank found with another rank's counts is raised on every rank.
inline void agree_no_problem(const communicator& c, std::string_view collective, const std::string& schedule,
                             const std::string& local_problem) {
  const std::int64_t mine = local_problem.empty() ? -1 : c.rank();
  std::int64_t worst = -1;
  HPCOLL_MPI(MPI_Allreduce, &mine, &worst, 1, MPI_INT64_T, MPI_MAX, c.native());
  if (!local_problem.empty()) throw error(collective, schedule, local_problem);
  if (worst >= 0)
    throw error(collective, schedule, concat({"rank ", std::to_string(worst), " was called with invalid arguments"}));
}

}  // namespace hpcoll::detail
