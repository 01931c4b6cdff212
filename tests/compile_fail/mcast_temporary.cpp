// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: the master's request keeps reading its data after the
// call returns, so the data cannot be a temporary container.
#include <hpcoll/hpcoll.hpp>

#include <vector>

int main() {
  hpcoll::communicator c(MPI_COMM_WORLD);
  hpcoll::mcast(c, std::vector<int>(4), hpcoll::rank_set(c.size(), {1})).wait();
}
