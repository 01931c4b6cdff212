// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: the ring reorders operands, the op says it must not.
#include <hpcoll/hpcoll.hpp>

#include <vector>

int main() {
  hpcoll::communicator c(MPI_COMM_WORLD);
  std::vector<int> in(4), out(4);
  auto minus = hpcoll::op::non_commutative([](int a, int b) { return a - b; });
  hpcoll::Allreduce<hpcoll::schedule::ring>{}(c, in, out, minus);
}
