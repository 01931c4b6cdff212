// SPDX-License-Identifier: BSD-3-Clause
// The same program with Boost.MPI, as its tutorial writes it (the anchor).
#include <boost/mpi.hpp>

#include <functional>
#include <vector>

int main(int argc, char** argv) {
  const boost::mpi::environment env(argc, argv);
  const boost::mpi::communicator world;
  const std::vector<double> in(1000, 1.0);
  std::vector<double> out(in.size());
  boost::mpi::all_reduce(world, in.data(), static_cast<int>(in.size()), out.data(), std::plus<double>());
}
