// SPDX-License-Identifier: BSD-3-Clause
// Counts are 64-bit end to end: a message above 2^31 bytes works (the
// executor cuts it into several MPI messages).
#include "support/mpi_test.hpp"

#include <hpcoll/hpcoll.hpp>

#include <climits>
#include <cstddef>
#include <vector>

namespace {
unsigned char pattern(std::size_t i) { return static_cast<unsigned char>(i ^ (i >> 11) ^ (i >> 29)); }

/// The bytes the test checks: one in 4093 and the last 5000. Only they carry
/// the pattern (the rest stay zero on every rank): a piece of the message
/// lost or put at the wrong offset shows at one of them, and writing all 2^31
/// bytes one by one takes a minute under ASan at -O0.
template <class F>
void for_each_checked(std::size_t n, F f) {
  for (std::size_t i = 0; i < n; i += 4093) f(i);
  for (std::size_t i = n - 5000; i < n; ++i) f(i);
}
}  // namespace

TEST_CASE("large_message.bcast_above_2GiB") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  const std::size_t n = (std::size_t{1} << 31) + 4099;  // more elements than an int can count
  static_assert(sizeof(std::size_t) == 8);
  std::vector<unsigned char> buf(n);
  const int root = c.size() - 1;
  if (c.rank() == root) for_each_checked(n, [&](std::size_t i) { buf[i] = pattern(i); });
  hpcoll::Bcast<hpcoll::schedule::binomial>{}(c, buf, root);
  std::size_t wrong = 0;
  for_each_checked(n, [&](std::size_t i) { wrong += buf[i] != pattern(i); });
  CHECK(wrong == 0);
}
