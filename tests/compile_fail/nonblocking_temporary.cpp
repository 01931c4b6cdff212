// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: the request would keep writing into a temporary vector
// destroyed at the end of the statement.
#include <hpcoll/hpcoll.hpp>

#include <vector>

int main() {
  hpcoll::communicator c(MPI_COMM_WORLD);
  std::vector<int> in(4);
  hpcoll::request r = hpcoll::iallreduce(c, in, std::vector<int>(4), hpcoll::op::sum{});
  r.wait();
}
