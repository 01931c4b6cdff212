// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_overhead: what hpcoll adds to a tiny collective. At np 2, for 8 B
// (two ints) per rank: the MPI library's own collective, the same messages
// sent by hand with the cheapest blocking calls (the floor for any library
// built on point-to-point messages), hpcoll with a named schedule and hpcoll's
// free function (automatic); times in ns. Each trial times `--calls` calls of every method
// in turn (the slowest rank's mean), the methods alternating; the table gives
// the median over `--trials` trials and hpcoll minus by hand.
//
//   mpiexec -n 2 --bind-to core hpcoll_overhead [--calls N] [--trials N]
//
// `--loop COLLECTIVE/METHOD` (METHOD: native, by_hand, named, automatic)
// instead makes `--calls` calls of one method, untimed, for an instruction
// counter: probes/call_instructions.py runs it under callgrind.
#include <hpcoll/hpcoll.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "options.hpp"
#include "run_info.hpp"

namespace {

namespace po = hpcoll_bench::po;
namespace S = hpcoll::schedule;

constexpr int count = 2;  // ints per rank: 8 B

struct method {
  const char* name;
  std::function<void()> call;
};

struct collective {
  const char* name;
  std::array<method, 4> methods;  // native, by hand, named schedule, automatic
};

int run(int argc, char** argv) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int calls = 20000, trials = 21;
  std::string loop;
  hpcoll_bench::command_line cl{"hpcoll_overhead", "usage: mpiexec -n 2 hpcoll_overhead [options]"};
  cl.options.add_options()("calls", po::value(&calls)->value_name("N"), "calls per method and trial (default 20000)")(
      "trials", po::value(&trials)->value_name("N"), "trials; the table gives their median (default 21)")(
      "loop", po::value(&loop)->value_name("COLLECTIVE/METHOD"),
      "only --calls calls of one method (native, by_hand, named, automatic), untimed");
  const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, rank == 0, [&] {
    if (size != 2) throw std::invalid_argument("runs on 2 ranks (mpiexec -n 2), not " + std::to_string(size));
    if (calls < 1 || trials < 1) throw std::invalid_argument("--calls and --trials must be positive");
  });
  if (parsed.exit) return *parsed.exit;

  const hpcoll::communicator c(MPI_COMM_WORLD);
  MPI_Comm raw = MPI_COMM_NULL;  // the by-hand messages get their own communicator, as hpcoll's do
  MPI_Comm_dup(MPI_COMM_WORLD, &raw);
  const int peer = 1 - rank;
  std::array<int, count> in{rank + 1, rank + 2}, out{}, got{};
  std::array<int, 2 * count> blocks_in{1, 2, 3, 4}, blocks_out{};
  const auto add_got = [&] {
    for (int i = 0; i < count; ++i) out[i] = in[i] + got[i];
  };

  const std::array<collective, 5> table{{
      {"bcast",
       {{{"native", [&] { MPI_Bcast(out.data(), count, MPI_INT, 0, MPI_COMM_WORLD); }},
         {"by hand",
          [&] {
            if (rank == 0)
              MPI_Send(out.data(), count, MPI_INT, 1, 0, raw);
            else
              MPI_Recv(out.data(), count, MPI_INT, 0, 0, raw, MPI_STATUS_IGNORE);
          }},
         {"Bcast<binomial>", [&] { hpcoll::Bcast<S::binomial>{}(c, out, 0); }},
         {"bcast", [&] { hpcoll::bcast(c, out, 0); }}}}},
      {"reduce",
       {{{"native", [&] { MPI_Reduce(in.data(), out.data(), count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); }},
         {"by hand",
          [&] {
            if (rank == 0) {
              MPI_Recv(got.data(), count, MPI_INT, 1, 0, raw, MPI_STATUS_IGNORE);
              add_got();
            } else {
              MPI_Send(in.data(), count, MPI_INT, 0, 0, raw);
            }
          }},
         {"Reduce<binomial>", [&] { hpcoll::Reduce<S::binomial>{}(c, in, out, hpcoll::op::sum{}, 0); }},
         {"reduce", [&] { hpcoll::reduce(c, in, out, hpcoll::op::sum{}, 0); }}}}},
      {"allreduce",
       {{{"native", [&] { MPI_Allreduce(in.data(), out.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD); }},
         {"by hand",
          [&] {
            MPI_Sendrecv(in.data(), count, MPI_INT, peer, 0, got.data(), count, MPI_INT, peer, 0, raw,
                         MPI_STATUS_IGNORE);
            add_got();
          }},
         {"Allreduce<recursive_doubling>",
          [&] { hpcoll::Allreduce<S::recursive_doubling>{}(c, in, out, hpcoll::op::sum{}); }},
         {"allreduce", [&] { hpcoll::allreduce(c, in, out, hpcoll::op::sum{}); }}}}},
      {"allgather",
       {{{"native", [&] { MPI_Allgather(in.data(), count, MPI_INT, blocks_out.data(), count, MPI_INT, MPI_COMM_WORLD); }},
         {"by hand",
          [&] {
            std::copy(in.begin(), in.end(), blocks_out.begin() + rank * count);
            MPI_Sendrecv(in.data(), count, MPI_INT, peer, 0, blocks_out.data() + peer * count, count, MPI_INT, peer, 0,
                         raw, MPI_STATUS_IGNORE);
          }},
         {"Allgather<recursive_doubling>", [&] { hpcoll::Allgather<S::recursive_doubling>{}(c, in, blocks_out); }},
         {"allgather", [&] { hpcoll::allgather(c, in, blocks_out); }}}}},
      {"alltoall",
       {{{"native",
          [&] { MPI_Alltoall(blocks_in.data(), count, MPI_INT, blocks_out.data(), count, MPI_INT, MPI_COMM_WORLD); }},
         {"by hand",
          [&] {
            std::copy_n(blocks_in.begin() + rank * count, count, blocks_out.begin() + rank * count);
            MPI_Sendrecv(blocks_in.data() + peer * count, count, MPI_INT, peer, 0, blocks_out.data() + peer * count,
                         count, MPI_INT, peer, 0, raw, MPI_STATUS_IGNORE);
          }},
         {"Alltoall<pairwise>", [&] { hpcoll::Alltoall<S::pairwise>{}(c, blocks_in, blocks_out); }},
         {"alltoall", [&] { hpcoll::alltoall(c, blocks_in, blocks_out); }}}}},
  }};

  constexpr std::array<const char*, 4> method_keys{"native", "by_hand", "named", "automatic"};
  if (!loop.empty()) {
    for (const collective& coll : table)
      for (std::size_t m = 0; m < method_keys.size(); ++m)
        if (loop == std::string(coll.name) + "/" + method_keys[m]) {
          for (int i = 0; i < calls; ++i) coll.methods[m].call();
          MPI_Comm_free(&raw);
          return 0;
        }
    throw std::invalid_argument("--loop " + loop + ": not COLLECTIVE/METHOD with a collective of the table "
                                "(bcast, reduce, allreduce, allgather, alltoall) and a method of native, by_hand, "
                                "named, automatic");
  }

  if (rank == 0)
    std::printf("np 2, 8 B per rank; median of %d trials of %d calls each (slowest rank's mean), methods alternating\n"
                "%-10s %9s %9s  %-30s %9s %9s %10s %10s\n",
                trials, calls, "collective", "native", "by hand", "named schedule", "named", "automatic",
                "named-hand", "auto-hand");
  for (const collective& coll : table) {
    std::array<std::vector<double>, 4> times;
    // Warm up: decisions, pools, MPI's paths.
    for (const method& m : coll.methods) hpcoll_bench::slowest_mean_ns(m.call, calls / 10 + 1);
    for (int t = 0; t < trials; ++t)
      for (std::size_t m = 0; m < coll.methods.size(); ++m)
        times[m].push_back(hpcoll_bench::slowest_mean_ns(coll.methods[m].call, calls));
    std::array<double, 4> med{};
    for (std::size_t m = 0; m < med.size(); ++m) med[m] = hpcoll_bench::median(times[m]);
    if (rank == 0)
      std::printf("%-10s %9.1f %9.1f  %-30s %9.1f %9.1f %10.1f %10.1f\n", coll.name, med[0], med[1],
                  coll.methods[2].name, med[2], med[3], med[2] - med[1], med[3] - med[1]);
  }
  MPI_Comm_free(&raw);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hpcoll_bench::run_main(argc, argv, "hpcoll_overhead", run); }
