// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: the free functions choose their schedule at run time, and
// only the collective's own header is included (not select/automatic.hpp).
#include <hpcoll/collectives/allreduce.hpp>

#include <vector>

int main() {
  const hpcoll::communicator comm(MPI_COMM_WORLD);
  std::vector<double> in(4), out(4);
  hpcoll::allreduce(comm, in, out, hpcoll::op::sum{});
}
