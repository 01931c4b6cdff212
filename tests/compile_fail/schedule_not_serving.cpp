// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: a binomial tree has no all-to-all.
#include <hpcoll/hpcoll.hpp>

#include <vector>

int main() {
  hpcoll::communicator c(MPI_COMM_WORLD);
  std::vector<int> in(4), out(4);
  hpcoll::Alltoall<hpcoll::schedule::binomial>{}(c, in, out);
}
