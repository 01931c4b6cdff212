// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::allreduce: the schedule chosen at run time by the dispatcher.
#include <hpcoll/collectives/allreduce.hpp>
#include <hpcoll/select/automatic.hpp>

#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    const hpcoll::communicator comm(MPI_COMM_WORLD);
    const std::vector<double> in(1000, 1.0);
    std::vector<double> out(in.size());
    hpcoll::allreduce(comm, in, out, hpcoll::op::sum{});
  }
  MPI_Finalize();
}
