// SPDX-License-Identifier: BSD-3-Clause
// Probe behind docs/benchmarks.md ("Allgather at np = 2"): hpcoll's allgather
// next to its all-to-all of the same volume and the native calls, 32 KiB
// blocks, the slowest rank's mean per call after 50 warm-up calls.
//   mpiexec -n 2 --bind-to none build/benchmarks/probe_allgather_own_block [--calls N]
#include <hpcoll/hpcoll.hpp>

#include <mpi.h>

#include <cstdio>
#include <functional>
#include <vector>

#include "../options.hpp"
#include "../run_info.hpp"

namespace {

namespace S = hpcoll::schedule;

/// The slowest rank's mean time per call of f over `calls` calls, in µs, after 50 warm-up calls.
double mean_us(int calls, const std::function<void()>& f) {
  for (int i = 0; i < 50; ++i) f();
  return hpcoll_bench::slowest_mean_ns(f, calls) / 1000;
}

int run(int argc, char** argv) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int calls = 2000;
  hpcoll_bench::command_line cl{"probe_allgather_own_block", "usage: mpiexec -n P probe_allgather_own_block [options]"};
  cl.options.add_options()("calls", hpcoll_bench::value_of(&calls, "N", hpcoll_bench::integer_in(1, 1000000000)),
                           "timed calls per method (default 2000)");
  if (const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, rank == 0); parsed.exit) return *parsed.exit;

  const hpcoll::communicator c(MPI_COMM_WORLD);
  const std::size_t n = 8192;  // ints per block: 32 KiB
  const std::size_t blocks = static_cast<std::size_t>(c.size());
  const int count = static_cast<int>(n);
  std::vector<int> in(blocks * n, 1), out(blocks * n), own(n, 1);
  const double allgather = mean_us(calls, [&] { hpcoll::Allgather<S::linear>{}(c, own, out); });
  const double alltoall = mean_us(calls, [&] { hpcoll::Alltoall<S::linear>{}(c, in, out); });
  const double native_allgather = mean_us(calls, [&] {
    MPI_Allgather(own.data(), count, MPI_INT, out.data(), count, MPI_INT, MPI_COMM_WORLD);
  });
  const double native_alltoall = mean_us(calls, [&] {
    MPI_Alltoall(in.data(), count, MPI_INT, out.data(), count, MPI_INT, MPI_COMM_WORLD);
  });
  const double in_place = mean_us(calls, [&] { hpcoll::Allgather<S::linear>{}(c, hpcoll::in_place, out); });
  if (rank == 0)
    std::printf("hpcoll allgather %.2f alltoall %.2f | native allgather %.2f alltoall %.2f | "
                "hpcoll allgather in-place %.2f us\n",
                allgather, alltoall, native_allgather, native_alltoall, in_place);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hpcoll_bench::run_main(argc, argv, "probe_allgather_own_block", run); }
