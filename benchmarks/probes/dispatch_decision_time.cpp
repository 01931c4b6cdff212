// SPDX-License-Identifier: BSD-3-Clause
// How long one dispatcher decision takes (every candidate priced by the cost
// model), for every collective of select/traits.hpp at growing p: the figures
// behind "Large p" in docs/dispatch.md. No MPI is started; a decision is made
// once per call class in real runs, so each figure is one decision from cold,
// the median of a few.
//
//   build/benchmarks/probe_dispatch_decision_time [p ...]    (default: 8 64 256 1024 4096 65536)
//   build/benchmarks/probe_dispatch_decision_time --help
//
// Vector collectives decide for 4 MiB of floats, block collectives (allgatherv
// too) for blocks of 256 floats, gatherv and alltoallv for their nominal blocks
// (select/traits.hpp).
#include <hpcoll/hpcoll.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "../options.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

/// The median time of `trials` decisions for `shape`, in ms, and the schedule chosen.
template <class Shape>
void time_decision(const Shape& shape, int trials) {
  std::vector<double> ms;
  std::string chosen;
  for (int i = 0; i < trials; ++i) {
    const auto t0 = clock_type::now();
    const hpcoll::decision d = hpcoll::decide(shape, hpcoll::machine{}, nullptr, nullptr);
    ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
    chosen = d.schedule();
  }
  std::sort(ms.begin(), ms.end());
  std::printf("p = %5d  %-21s %10.3f ms  (%s)\n", shape.size, std::string(Shape::name).c_str(), ms[ms.size() / 2],
              chosen.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> given;
  std::vector<int> sizes;
  hpcoll_bench::command_line cl{"probe_dispatch_decision_time",
                                "usage: probe_dispatch_decision_time [p ...]   (no MPI: the dispatcher's decisions)"};
  cl.options.add_options()(
      "p", hpcoll_bench::po::value(&given)->composing()->value_name("P,..."),
      "communicator sizes, also as bare arguments (default 8 64 256 1024 4096 65536)");
  cl.bare = "p";
  const auto check = [&] {
    for (const std::string& g : given)
      for (const int p : hpcoll_bench::parse_rank_counts(g)) sizes.push_back(p);
  };
  if (const auto parsed = hpcoll_bench::parse_command_line(argc, argv, cl, true, check); parsed.exit)
    return *parsed.exit;
  if (sizes.empty()) sizes = {8, 64, 256, 1024, 4096, 65536};
  constexpr std::size_t vector_elems = std::size_t{1} << 20, block_elems = 256, f = sizeof(float);
  for (const int p : sizes) {
    const int trials = p <= 4096 ? 5 : 3;
    const std::vector<std::size_t> nominal(static_cast<std::size_t>(p), 0);  // decide() prices nominal blocks
    time_decision(hpcoll::bcast_shape{0, p, 0, vector_elems, f}, trials);
    time_decision(hpcoll::reduce_shape{0, p, 0, vector_elems, true, false, f}, trials);
    time_decision(hpcoll::allreduce_shape{0, p, vector_elems, true, false, f}, trials);
    time_decision(hpcoll::gather_shape{0, p, 0, block_elems, false, f}, trials);
    time_decision(hpcoll::gatherv_shape{0, p, 0, block_elems, nominal, nominal, false, f}, trials);
    time_decision(hpcoll::scatter_shape{0, p, 0, block_elems, false, f}, trials);
    time_decision(hpcoll::allgather_shape{0, p, block_elems, false, f}, trials);
    std::vector<std::size_t> counts(static_cast<std::size_t>(p), block_elems), starts(counts.size() + 1);
    for (std::size_t i = 0; i < starts.size(); ++i) starts[i] = i * block_elems;
    time_decision(hpcoll::allgatherv_shape{0, p, block_elems, counts, std::span(starts).first(counts.size()), starts,
                                           false, f, true},
                  trials);
    time_decision(hpcoll::reduce_scatter_block_shape{0, p, block_elems, true, false, f}, trials);
    time_decision(hpcoll::alltoall_shape{0, p, block_elems, false, f}, trials);
    time_decision(hpcoll::alltoallv_shape{0, p, nominal, nominal, nominal, nominal, false, f}, trials);
  }
}
