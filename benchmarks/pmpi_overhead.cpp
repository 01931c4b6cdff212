// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_pmpi_overhead: what libhpcoll_mpi adds to a call. Each collective,
// 8 B per rank (two ints), through its MPI_ function and through hpcoll's
// free function, the two alternating; then the nonblocking forms, started and
// waited for (MPI_Iallreduce + MPI_Wait against hpcoll::iallreduce + wait());
// times in ns (the median over `--trials` trials of `--calls` calls, the
// slowest rank's mean). Run with the library preloaded, the MPI_ calls are
// served by hpcoll and the difference is the interception; at np 1 the
// collective itself is a local copy, so nothing but the interception differs
// (docs/pmpi.md). The program calls MPI_Init: the library serves the
// nonblocking forms only under MPI_THREAD_MULTIPLE, which
// HPCOLL_PMPI_THREAD=multiple makes it ask for (the blocking forms are then
// timed under that level too).
//
//   mpiexec -n 1 -x LD_PRELOAD=build/src/pmpi/libhpcoll_mpi.so [-x HPCOLL_PMPI_THREAD=multiple]
//           hpcoll_pmpi_overhead [--calls N] [--trials N]
#include <dlfcn.h>
#include <mpi.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <functional>
#include <hpcoll/hpcoll.hpp>
#include <vector>

#include "options.hpp"
#include "run_info.hpp"

namespace {

namespace po = hpcoll_bench::po;

struct row {
  const char* name;
  std::function<void()> through_mpi, through_hpcoll;
};

/// The slowest rank's mean time of `calls` calls, in ns.
double trial(const std::function<void()>& call, int calls) {
  PMPI_Barrier(MPI_COMM_WORLD);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call();
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / calls;
  PMPI_Allreduce(MPI_IN_PLACE, &ns, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return ns;
}

/// The file MPI_Allreduce was bound to: libhpcoll_mpi when preloaded or linked.
const char* mpi_allreduce_origin() {
  Dl_info info{};
  return dladdr(reinterpret_cast<void*>(&MPI_Allreduce), &info) != 0 && info.dli_fname ? info.dli_fname : "unknown";
}

/// A generalized request with nothing to do: the floor under every served
/// nonblocking call, which hands its run to the program as one.
int no_status(void*, MPI_Status* status) {
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  return MPI_SUCCESS;
}
int no_release(void*) { return MPI_SUCCESS; }
int no_cancel(void*, int) { return MPI_SUCCESS; }
void generalized_request_round_trip() {
  MPI_Request request = MPI_REQUEST_NULL;
  PMPI_Grequest_start(no_status, no_release, no_cancel, nullptr, &request);
  PMPI_Grequest_complete(request);
  PMPI_Wait(&request, MPI_STATUS_IGNORE);
}

/// Starts a nonblocking call through its MPI_ function and waits for it.
template <class Start>
void start_and_wait(Start start) {
  MPI_Request request = MPI_REQUEST_NULL;
  start(&request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
}

int run(int argc, char** argv) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int calls = 20000, trials = 21;
  hpcoll_bench::command_line cl{"hpcoll_pmpi_overhead", "usage: mpiexec -n P hpcoll_pmpi_overhead [options]"};
  cl.options.add_options()("calls", po::value(&calls)->value_name("N"), "calls per method and trial (default 20000)")(
      "trials", po::value(&trials)->value_name("N"), "trials; the table gives their median (default 21)");
  const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, rank == 0, [&] {
    if (calls < 1 || trials < 1) throw std::invalid_argument("--calls and --trials must be positive");
  });
  if (parsed.exit) return *parsed.exit;

  const hpcoll::communicator c(MPI_COMM_WORLD);
  const auto p = static_cast<std::size_t>(size);
  std::array<int, 2> in{rank + 1, rank + 2}, out{};
  std::vector<int> blocks_in(2 * p, 1), blocks_out(2 * p);
  const std::vector<row> rows{
      {"bcast", [&] { MPI_Bcast(out.data(), 2, MPI_INT, 0, MPI_COMM_WORLD); }, [&] { hpcoll::bcast(c, out, 0); }},
      {"reduce", [&] { MPI_Reduce(in.data(), out.data(), 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); },
       [&] { hpcoll::reduce(c, in, out, hpcoll::op::sum{}, 0); }},
      {"allreduce", [&] { MPI_Allreduce(in.data(), out.data(), 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD); },
       [&] { hpcoll::allreduce(c, in, out, hpcoll::op::sum{}); }},
      {"allgather", [&] { MPI_Allgather(in.data(), 2, MPI_INT, blocks_out.data(), 2, MPI_INT, MPI_COMM_WORLD); },
       [&] { hpcoll::allgather(c, in, blocks_out); }},
      {"alltoall",
       [&] { MPI_Alltoall(blocks_in.data(), 2, MPI_INT, blocks_out.data(), 2, MPI_INT, MPI_COMM_WORLD); },
       [&] { hpcoll::alltoall(c, blocks_in, blocks_out); }},
      {"ibcast", [&] { start_and_wait([&](MPI_Request* r) { MPI_Ibcast(out.data(), 2, MPI_INT, 0, MPI_COMM_WORLD, r); }); },
       [&] { hpcoll::ibcast(c, out, 0).wait(); }},
      {"iallreduce",
       [&] {
         start_and_wait([&](MPI_Request* r) {
           MPI_Iallreduce(in.data(), out.data(), 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, r);
         });
       },
       [&] { hpcoll::iallreduce(c, in, out, hpcoll::op::sum{}).wait(); }},
      {"ialltoall",
       [&] {
         start_and_wait([&](MPI_Request* r) {
           MPI_Ialltoall(blocks_in.data(), 2, MPI_INT, blocks_out.data(), 2, MPI_INT, MPI_COMM_WORLD, r);
         });
       },
       [&] { hpcoll::ialltoall(c, blocks_in, blocks_out).wait(); }},
  };

  if (rank == 0)
    std::printf("np %d, 8 B per rank; median of %d trials of %d calls each (slowest rank's mean), methods alternating\n"
                "MPI_Allreduce from %s\n%-10s %10s %10s %10s\n",
                size, trials, calls, mpi_allreduce_origin(), "collective", "MPI_", "hpcoll::", "difference");
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (rank == 0 && level != MPI_THREAD_MULTIPLE)
    std::printf("(not MPI_THREAD_MULTIPLE: a preloaded library forwards the MPI_I... rows to PMPI)\n");
  for (const row& r : rows) {
    trial(r.through_mpi, calls / 10 + 1);  // warm up: decisions, pools, MPI's paths
    trial(r.through_hpcoll, calls / 10 + 1);
    std::vector<double> mpi_times, hpcoll_times;
    for (int t = 0; t < trials; ++t) {
      mpi_times.push_back(trial(r.through_mpi, calls));
      hpcoll_times.push_back(trial(r.through_hpcoll, calls));
    }
    const double mpi = hpcoll_bench::median(mpi_times), direct = hpcoll_bench::median(hpcoll_times);
    if (rank == 0) std::printf("%-10s %10.1f %10.1f %10.1f\n", r.name, mpi, direct, mpi - direct);
  }
  trial(generalized_request_round_trip, calls / 10 + 1);
  std::vector<double> round_trips;
  for (int t = 0; t < trials; ++t) round_trips.push_back(trial(generalized_request_round_trip, calls));
  if (rank == 0)
    std::printf("a generalized request started, completed and waited for (PMPI_): %.1f ns\n",
                hpcoll_bench::median(round_trips));
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hpcoll_bench::run_main(argc, argv, "hpcoll_pmpi_overhead", run); }
