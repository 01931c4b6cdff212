// SPDX-License-Identifier: BSD-3-Clause
// Self-test of the MPI test harness (tests/support/mpi_doctest_main.cpp).
#include "support/mpi_test.hpp"

#include <numeric>
#include <stdexcept>
#include <vector>

using hpcoll_test::world_rank;
using hpcoll_test::world_size;

TEST_CASE("harness: rank and size are consistent across ranks") {
  const int rank = world_rank();
  const int size = world_size();
  REQUIRE(size >= 1);
  REQUIRE(rank >= 0);
  REQUIRE(rank < size);

  int one = 1, counted = 0;
  MPI_Allreduce(&one, &counted, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(counted == size);

  long long r = rank, rank_sum = 0;
  MPI_Allreduce(&r, &rank_sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(rank_sum == static_cast<long long>(size) * (size - 1) / 2);

  int max_rank = -1, min_rank = -1;
  MPI_Allreduce(&rank, &max_rank, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&rank, &min_rank, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  CHECK(max_rank == size - 1);
  CHECK(min_rank == 0);

  // Every rank sees the same size.
  int size_min = 0, size_max = 0;
  MPI_Allreduce(&size, &size_min, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&size, &size_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(size_min == size);
  CHECK(size_max == size);
}

TEST_CASE("harness: ranks are distinct (allgather)") {
  const int rank = world_rank();
  const int size = world_size();
  std::vector<int> ranks(static_cast<std::size_t>(size), -1);
  MPI_Allgather(&rank, 1, MPI_INT, ranks.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < size; ++i) CHECK(ranks[static_cast<std::size_t>(i)] == i);
}

TEST_CASE("harness: thread level is the same on every rank") {
  int level = -1;
  MPI_Query_thread(&level);
  CHECK(level >= MPI_THREAD_SINGLE);
  int lo = 0, hi = 0;
  MPI_Allreduce(&level, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&level, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(lo == hi);
}

TEST_CASE("harness: collective helpers") {
  const int rank = world_rank();
  const int size = world_size();
  CHECK(hpcoll_test::all_ranks(true));
  CHECK_FALSE(hpcoll_test::any_rank(false));
  CHECK(hpcoll_test::any_rank(rank == size - 1));
  CHECK(hpcoll_test::all_ranks(rank == 0) == (size == 1));
  HPCOLL_REQUIRE_ALL_RANKS(rank < size);

  SUBCASE("subcases run in lockstep on every rank") {
    int x = rank + 1, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size * (size + 1) / 2);
  }
  SUBCASE("point-to-point ring") {
    int token = rank, received = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 7, &received, 1, MPI_INT,
                 (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(received == (rank + size - 1) % size);
  }
}

// Deliberately failing test case, skipped by default. The ctest case
// harness.failure_propagates runs it with --no-skip at np 3 and expects:
// nonzero exit, "[rank 1] ..." (failed CHECK) and "[rank 2] ..." (exception)
// forwarded to rank 0, and "mpi: 3 ranks, failed on ranks: 1 2".
TEST_CASE("harness: injected failure" * doctest::skip()) {
  const int rank = world_rank();
  CHECK(rank != 1);
  if (rank == 2) throw std::runtime_error("injected exception on rank 2");
}
