// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_dijkstra_pbgl: the Parallel BGL's distributed delta-stepping
// (boost::graph::distributed::delta_stepping_shortest_paths) on its
// distributed CSR graph, under mpiexec, on hpcoll_dijkstra's graphs: a peer
// to compare hpcoll_dijkstra --solver delta with at the same np
// (docs/dijkstra.md). Rank 0 reads or generates the graph with
// hpcoll_dijkstra's code and hands each rank the block of vertices the
// Parallel BGL's block distribution gives it; it prints the same checksum line.
//
//   mpiexec -n P hpcoll_dijkstra_pbgl (--graph FILE | --generate PRESET|N [--seed K]) [--source V]
//       [--delta D] [--json FILE]
#include <mpi.h>

#include <boost/graph/use_mpi.hpp>
// The graph type before the algorithm (the Parallel BGL's rule).
#include <boost/graph/distributed/compressed_sparse_row_graph.hpp>
#include <boost/graph/distributed/delta_stepping_shortest_paths.hpp>
#include <boost/graph/distributed/mpi_process_group.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "partition.hpp"
#include "peer_summary.hpp"
#include "run_info.hpp"

namespace {

using namespace hpcoll_dijkstra;
using boost::graph::distributed::mpi_process_group;

constexpr const char* program = "hpcoll_dijkstra_pbgl";

struct weighted_arc {
  distance_t weight;  // the algorithm computes distances in the weights' type: 64 bits, as hpcoll_dijkstra's
};

using pbgl_graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, weighted_arc,
                                                      boost::no_property, boost::distributedS<mpi_process_group>>;

/// The Parallel BGL's own delta (delta_stepping_impl's constructor): the largest arc weight over
/// the largest out-degree, at least 1. Computed here only to be reported.
std::uint64_t pbgl_default_delta(const csr_graph& mine) {
  std::uint64_t local[2] = {0, 0}, global[2];  // max weight, max out-degree
  for (const weight_t w : mine.weights) local[0] = std::max<std::uint64_t>(local[0], w);
  for (std::uint64_t v = 0; v < mine.vertex_count(); ++v)
    local[1] = std::max(local[1], mine.offsets[v + 1] - mine.offsets[v]);
  MPI_Allreduce(local, global, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return global[1] == 0 ? 1 : std::max<std::uint64_t>(global[0] / global[1], 1);
}

int run(int argc, char** argv) {
  const double start = MPI_Wtime();
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  graph_input input;
  std::optional<std::uint64_t> delta;
  std::string json_file;
  hpcoll_bench::command_line cl{program,
                                "usage: mpiexec -n P hpcoll_dijkstra_pbgl (--graph FILE | --generate PRESET|N) [options]\n"
                                "The Parallel BGL's distributed delta-stepping on hpcoll_dijkstra's graphs; "
                                "docs/dijkstra.md."};
  add_peer_options(cl, input, json_file);
  cl.options.add_options()("delta", hpcoll_bench::value_of(&delta, "D", integer_in(1, UINT64_MAX)),
                           "the bucket width (default: the Parallel BGL's, the largest arc weight / the largest "
                           "out-degree)");
  const auto parsed =
      hpcoll_bench::parse_command_line(argc, argv, cl, rank == 0, [&] { check_graph_options(input); });
  if (parsed.exit) return *parsed.exit;

  peer_summary s(program, argc, argv, "Parallel BGL delta_stepping_shortest_paths", input);
  s.np = size;
  csr_graph whole;
  std::string problem = hpcoll_bench::on_rank0(rank, [&] { whole = load_graph(input); });
  if (hpcoll_bench::failed_on_rank0(program, problem)) return 1;
  std::uint64_t counts[2] = {whole.vertex_count(), whole.arc_count()};
  MPI_Bcast(counts, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  s.vertices = counts[0];
  s.arcs = counts[1];

  mpi_process_group group;
  const boost::parallel::block distribution(group, s.vertices);
  std::vector<std::uint64_t> starts(static_cast<std::size_t>(size) + 1, s.vertices);
  for (int r = 0; r < size; ++r) starts[r] = distribution.start(r);
  std::optional<pbgl_graph> g;
  {
    const csr_graph mine = scatter_blocks(MPI_COMM_WORLD, whole, starts);
    whole = {};
    s.delta = delta.value_or(pbgl_default_delta(mine));
    s.default_delta = !delta;
    // The arcs as (tail, head) of global indices: the unsorted multi-pass constructor keeps those
    // whose tail this rank owns (all of them here).
    std::vector<std::pair<std::size_t, std::size_t>> arcs;
    std::vector<weighted_arc> weights;
    arcs.reserve(mine.arc_count());
    weights.reserve(mine.arc_count());
    for (std::uint64_t v = 0; v < mine.vertex_count(); ++v)
      for (std::uint64_t a = mine.offsets[v]; a < mine.offsets[v + 1]; ++a) {
        arcs.emplace_back(starts[rank] + v, mine.heads[a]);
        weights.push_back({mine.weights[a]});
      }
    g.emplace(boost::edges_are_unsorted_multi_pass, arcs.begin(), arcs.end(), weights.begin(), s.vertices, group);
  }
  double seconds[2] = {MPI_Wtime() - start, 0};  // load, solve

  std::vector<distance_t> distances(num_vertices(*g));
  // With the graph's (local) vertex index, a distributed property map over this rank's vertices.
  auto distance_map = boost::make_iterator_property_map(distances.begin(), get(boost::vertex_index, *g));
  MPI_Barrier(MPI_COMM_WORLD);
  const double solve_start = MPI_Wtime();
  const auto source = vertex(input.source - 1, *g);
  // The Parallel BGL's own choice divides by the largest out-degree (a division by zero without
  // arcs): there its delta of 1 is given.
  if (delta || s.arcs == 0)
    boost::graph::distributed::delta_stepping_shortest_paths(*g, source, boost::dummy_property_map(), distance_map,
                                                             get(&weighted_arc::weight, *g), s.delta);
  else
    boost::graph::distributed::delta_stepping_shortest_paths(*g, source, boost::dummy_property_map(), distance_map,
                                                             get(&weighted_arc::weight, *g));
  seconds[1] = MPI_Wtime() - solve_start;
  double max_seconds[2];
  MPI_Allreduce(seconds, max_seconds, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  s.load_seconds = max_seconds[0];
  s.solve_seconds = max_seconds[1];
  s.sums = global_checksum(MPI_COMM_WORLD, distances);

  problem = hpcoll_bench::on_rank0(rank, [&] {
    print(s);
    if (!json_file.empty()) hpcoll_bench::json::write_file(json_file, to_json(s));
  });
  return hpcoll_bench::failed_on_rank0(program, problem) ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) { return hpcoll_bench::run_main(argc, argv, program, run); }
