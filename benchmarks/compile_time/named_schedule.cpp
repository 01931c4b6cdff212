// SPDX-License-Identifier: BSD-3-Clause
// Allreduce with a schedule named at compile time: the light path.
#include <hpcoll/collectives/allreduce.hpp>
#include <hpcoll/schedule/ring.hpp>

#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    const hpcoll::communicator comm(MPI_COMM_WORLD);
    const std::vector<double> in(1000, 1.0);
    std::vector<double> out(in.size());
    hpcoll::Allreduce<hpcoll::schedule::ring>{}(comm, in, out, hpcoll::op::sum{});
  }
  MPI_Finalize();
}
