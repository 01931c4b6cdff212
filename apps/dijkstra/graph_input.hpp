// SPDX-License-Identifier: BSD-3-Clause
// The graph a shortest-path program runs on, as its command line names it:
// --graph FILE or --generate PRESET|N [--seed K], and --source V. Shared by
// hpcoll_dijkstra and its peers (peers/), so that they read the same options
// the same way and load the same graph.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "generator.hpp"
#include "graph.hpp"
#include "options.hpp"

namespace hpcoll_dijkstra {

using hpcoll_bench::integer_in;

struct graph_input {
  std::string graph;
  std::optional<road_preset> generate;
  std::optional<std::uint64_t> seed;
  std::uint64_t source = 1;  ///< 1-based

  /// The file's path, or "cal (generated, seed 1)".
  std::string name() const {
    if (!generate) return graph;
    return (generate->name.empty() ? "road network" : std::string(generate->name)) + " (generated, seed " +
           std::to_string(seed.value_or(1)) + ")";
  }
};

/// --graph, --generate, --seed (and --source with `source`) for `input`.
inline void add_graph_options(hpcoll_bench::command_line& cl, graph_input& input, bool source = true) {
  namespace po = hpcoll_bench::po;
  cl.options.add_options()
      ("graph", po::value(&input.graph)->value_name("FILE"), "a DIMACS shortest-path file (.gr, or gzip-compressed .gr.gz)")
      ("generate", hpcoll_bench::value_of(&input.generate, "PRESET|N", parse_generate),
       "a generated road network: seto (58,168 nodes), cal (1,890,815), usa (23,947,347) or N nodes")
      ("seed", hpcoll_bench::value_of(&input.seed, "K", integer_in(0, UINT64_MAX)), "the generator's seed (default 1)");
  if (source)
    cl.options.add_options()("source", hpcoll_bench::value_of(&input.source, "V", integer_in(1, max_vertices)),
                             "the source vertex, 1..N (default 1)");
}

/// The usage errors of add_graph_options' options, as std::invalid_argument.
inline void check_graph_options(const graph_input& input) {
  if (input.graph.empty() == !input.generate)
    throw std::invalid_argument(input.graph.empty() ? "give --graph FILE or --generate PRESET|N"
                                                    : "--graph and --generate exclude each other");
  if (input.seed && !input.generate) throw std::invalid_argument("--seed is for --generate");
}

/// The graph read or generated; input_error for a bad file, std::invalid_argument for a source
/// outside it.
inline csr_graph load_graph(const graph_input& input) {
  csr_graph g = input.generate
                    ? generate_road_network(input.generate->nodes, input.generate->arcs, input.seed.value_or(1))
                    : read_dimacs(input.graph);
  if (input.source > g.vertex_count())
    throw std::invalid_argument("--source " + std::to_string(input.source) + " is outside the graph's nodes 1.." +
                                std::to_string(g.vertex_count()));
  return g;
}

}  // namespace hpcoll_dijkstra
