// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: an allgatherv's counts are element counts, not doubles.
#include <hpcoll/collectives/allgatherv.hpp>
#include <hpcoll/schedule/ring.hpp>

#include <vector>

int main() {
  hpcoll::communicator c(MPI_COMM_WORLD);
  std::vector<int> in(1), out(4);
  const std::vector<double> counts(4, 1.0);
  hpcoll::Allgatherv<hpcoll::schedule::ring>{}(c, in, out, counts);
}
