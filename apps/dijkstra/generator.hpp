// SPDX-License-Identifier: BSD-3-Clause
// A generator of road-network-like graphs, standing in for the DIMACS road
// graphs no machine here has: deterministic from a seed, connected,
// undirected (each edge as two arcs of the same weight), nearly planar, about
// 2.44 arcs per node as in the DIMACS USA and California graphs.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "graph.hpp"

namespace hpcoll_dijkstra {

/// A graph size by name: the node and arc counts of a DIMACS road graph.
struct road_preset {
  std::string_view name;
  std::uint64_t nodes;
  std::uint64_t arcs;
};

/// The arcs of a generated graph of n nodes unless a preset says otherwise:
/// two per edge, round(1.22 n) edges (2.44 arcs per node).
std::uint64_t default_arc_count(std::uint64_t nodes);

/// seto (58,168 nodes, arcs by default_arc_count), cal (1,890,815 nodes,
/// 4,657,742 arcs) and usa (23,947,347 nodes, 58,333,344 arcs).
std::span<const road_preset> road_presets();

/// What --generate names: a preset, or a node count with default_arc_count
/// arcs; std::invalid_argument for anything else.
road_preset parse_generate(const std::string& text);

/// A road network of `nodes` nodes and `arcs` arcs (even; an undirected
/// edge is two arcs), the same for a seed with any standard library:
///   - the nodes on a grid of ceil(sqrt(n)) columns, numbered row by row,
///     each moved by a random offset (1 km spacing, up to 300 m each way);
///   - a random spanning tree of the grid's edges (Kruskal over the edges
///     in random order), so the graph is connected;
///   - n/256 long roads, 4 to 16 grid cells straight across in one of eight
///     directions, where the grid has room for them;
///   - the remaining edges drawn at random from the grid edges not in the tree.
/// Weights are the Euclidean lengths in metres, rounded. A grid too small for
/// the requested count gets all its edges (fewer arcs).
csr_graph generate_road_network(std::uint64_t nodes, std::uint64_t arcs, std::uint64_t seed);

}  // namespace hpcoll_dijkstra
