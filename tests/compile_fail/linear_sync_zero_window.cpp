// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: a window of zero peers per round never finishes.
#include <hpcoll/hpcoll.hpp>

#include <vector>

int main() {
  hpcoll::communicator c(MPI_COMM_WORLD);
  std::vector<int> in(4), out(4);
  hpcoll::Alltoall<hpcoll::schedule::linear_sync<0>>{}(c, in, out);
}
