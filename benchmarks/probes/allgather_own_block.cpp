// SPDX-License-Identifier: BSD-3-Clause
// Probe behind docs/benchmarks.md ("Allgather at np = 2"): hpcoll's allgather
// next to its all-to-all of the same volume and the native calls, 32 KiB
// blocks, 2000 calls after 50 warm-up calls, rank 0's mean per call.
//   mpiexec -n 2 --bind-to none build/benchmarks/probe_allgather_own_block
#include <hpcoll/hpcoll.hpp>
#include <cstdio>
#include <vector>
namespace S = hpcoll::schedule;
template <class F> double bench(F f) { for (int i=0;i<50;++i) f(); MPI_Barrier(MPI_COMM_WORLD); double t=MPI_Wtime(); for (int i=0;i<2000;++i) f(); return (MPI_Wtime()-t)/2000*1e6; }
int main(int argc, char** argv) {
  MPI_Init(&argc,&argv);
  { hpcoll::communicator c(MPI_COMM_WORLD); const std::size_t n = 8192; // ints per block = 32 KiB
    std::vector<int> in(2*n, 1), out(2*n), in1(n, 1);
    double a = bench([&]{ hpcoll::Allgather<S::linear>{}(c, in1, out); });
    double b = bench([&]{ hpcoll::Alltoall<S::linear>{}(c, in, out); });
    double d = bench([&]{ MPI_Allgather(in1.data(), n, MPI_INT, out.data(), n, MPI_INT, MPI_COMM_WORLD); });
    double e = bench([&]{ MPI_Alltoall(in.data(), n, MPI_INT, out.data(), n, MPI_INT, MPI_COMM_WORLD); });
    double g = bench([&]{ hpcoll::Allgather<S::linear>{}(c, hpcoll::in_place, out); });
    if (c.rank()==0) std::printf("hpcoll allgather %.2f alltoall %.2f | native allgather %.2f alltoall %.2f | hpcoll allgather in-place %.2f us\n", a,b,d,e,g);
  }
  MPI_Finalize();
}
