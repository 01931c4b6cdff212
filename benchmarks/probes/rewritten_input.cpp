// SPDX-License-Identifier: BSD-3-Clause
// Probe behind docs/dispatch.md ("The np 2 allreduce of 256 KiB"): recursive
// doubling against the ring at two ranks, with the input the benchmarks send
// (the same vector every call) and with an input the caller rewrites before
// each call, as an application does. An unchanged input that the peer copied
// in the last call is still in its cache; a rewritten one sits modified in
// its owner's cache and crosses between the cores line by line. The rewrite's
// own time, measured alone, is taken out. Per size and method: the slowest
// rank's mean per call after 20 warm-up calls, the median of 5 such means.
//   mpiexec -n 2 --bind-to core build/benchmarks/probe_rewritten_input [--calls N]
#include <hpcoll/hpcoll.hpp>

#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "../options.hpp"
#include "../run_info.hpp"

namespace {

namespace S = hpcoll::schedule;

int run(int argc, char** argv) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int calls = 200;
  hpcoll_bench::command_line cl{"probe_rewritten_input", "usage: mpiexec -n P probe_rewritten_input [options]"};
  cl.options.add_options()("calls", hpcoll_bench::value_of(&calls, "N", hpcoll_bench::integer_in(1, 1000000000)),
                           "timed calls per sample (default 200)");
  if (const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, rank == 0); parsed.exit) return *parsed.exit;

  const hpcoll::communicator c(MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%9s  %-9s %12s %12s %12s   (µs a call; rewritten: the rewrite's own time taken out)\n", "bytes",
                "input", "recursive", "ring", "native");
  for (const std::size_t bytes : {std::size_t{64} << 10, std::size_t{256} << 10, std::size_t{1} << 20}) {
    const std::size_t n = bytes / sizeof(int);
    std::vector<int> in(n, 1), fresh(n, 2), out(n);
    const auto rewrite = [&] { std::memcpy(in.data(), fresh.data(), bytes); };
    const double rewrite_alone = hpcoll_bench::median_call_us(rewrite, calls);
    for (const bool rewritten : {false, true}) {
      const auto timed = [&](const std::function<void()>& call) {
        if (!rewritten) return hpcoll_bench::median_call_us(call, calls);
        return hpcoll_bench::median_call_us([&] { rewrite(), call(); }, calls) - rewrite_alone;
      };
      const double doubling = timed([&] { hpcoll::Allreduce<S::recursive_doubling>{}(c, in, out, hpcoll::op::sum{}); });
      const double ring = timed([&] { hpcoll::Allreduce<S::ring>{}(c, in, out, hpcoll::op::sum{}); });
      const double native = timed([&] {
        MPI_Allreduce(in.data(), out.data(), static_cast<int>(n), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      });
      if (rank == 0)
        std::printf("%9zu  %-9s %12.2f %12.2f %12.2f\n", bytes, rewritten ? "rewritten" : "unchanged", doubling, ring,
                    native);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hpcoll_bench::run_main(argc, argv, "probe_rewritten_input", run); }
