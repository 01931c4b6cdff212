// SPDX-License-Identifier: BSD-3-Clause
// Interoperation with Boost.MPI: an hpcoll::communicator made from a boost::mpi::communicator.
#include "support/collective_test.hpp"

#include <boost/mpi/communicator.hpp>

#include <hpcoll/boost_mpi.hpp>

#include <vector>

TEST_CASE("boost_mpi.communicator") {
  boost::mpi::communicator world;  // attaches to MPI_COMM_WORLD
  hpcoll::communicator c(world);
  CHECK(c.size() == world.size());
  CHECK(c.rank() == world.rank());
  std::vector<int> in(4, world.rank()), out(4);
  hpcoll::allreduce(c, in, out, hpcoll::op::max{});
  CHECK(out == std::vector<int>(4, world.size() - 1));
}
