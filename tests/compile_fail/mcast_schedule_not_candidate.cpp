// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: members learn the schedule from the header, so a
// multicast runs only the schedules of schedule::candidates<mcast_shape>.
#include <hpcoll/hpcoll.hpp>

#include <vector>

int main() {
  hpcoll::communicator c(MPI_COMM_WORLD);
  std::vector<int> data(4);
  hpcoll::Mcast<hpcoll::schedule::knomial<4>>{}(c, data, hpcoll::rank_set(c.size(), {1})).wait();
}
