// The shortest-path solvers, all exact (64-bit integer distances):
//   sequential_dijkstra  a binary-heap Dijkstra on one rank's whole graph, the reference.
#pragma once

#include <vector>

#include "graph.hpp"

namespace hpcoll_dijkstra {

/// Distances from `source` to every vertex of g (`unreachable` where no path).
std::vector<distance_t> sequential_dijkstra(const csr_graph& g, vertex_t source);

}  // namespace hpcoll_dijkstra
