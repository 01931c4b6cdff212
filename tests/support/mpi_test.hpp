// SPDX-License-Identifier: BSD-3-Clause
// Small helpers for MPI test cases run by tests/support/mpi_doctest_main.cpp.
#pragma once

#include <doctest/doctest.h>
#include <mpi.h>

namespace hpcoll_test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// Collective: true on every rank iff `local` is true on every rank of comm.
inline bool all_ranks(bool local, MPI_Comm comm = MPI_COMM_WORLD) {
  int in = local ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, comm);
  return out != 0;
}

// Collective: true on every rank iff `local` is true on at least one rank.
inline bool any_rank(bool local, MPI_Comm comm = MPI_COMM_WORLD) {
  int in = local ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LOR, comm);
  return out != 0;
}

}  // namespace hpcoll_test

// Collective REQUIRE: every rank checks the condition (a failure is reported by
// the rank where it happened), then *all* ranks leave the test case together if
// it failed anywhere, so no rank is left waiting in a later collective.
// Plain REQUIRE on a rank-local condition can leave the other ranks hanging.
// Use only directly in a TEST_CASE/SUBCASE body (it expands to `return;`).
#define HPCOLL_REQUIRE_ALL_RANKS(...)                                              \
  do {                                                                             \
    const bool hpcoll_ok_ = static_cast<bool>(__VA_ARGS__);                        \
    CHECK_MESSAGE(hpcoll_ok_, "HPCOLL_REQUIRE_ALL_RANKS(" #__VA_ARGS__ ")");       \
    if (!::hpcoll_test::all_ranks(hpcoll_ok_)) return;                            \
  } while (0)
