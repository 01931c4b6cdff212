// SPDX-License-Identifier: BSD-3-Clause
#include "generator.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

namespace hpcoll_dijkstra {

std::uint64_t default_arc_count(std::uint64_t nodes) { return 2 * ((122 * nodes + 50) / 100); }

std::span<const road_preset> road_presets() {
  static const road_preset presets[] = {
      {"seto", 58'168, default_arc_count(58'168)},
      {"cal", 1'890'815, 4'657'742},
      {"usa", 23'947'347, 58'333'344},
  };
  return presets;
}

road_preset parse_generate(const std::string& text) {
  for (const road_preset& p : road_presets())
    if (text == p.name) return p;
  std::uint64_t nodes = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), nodes);
  if (text.empty() || status != std::errc() || end != text.data() + text.size() || nodes == 0 ||
      nodes > max_vertices) {
    std::string names;
    for (const road_preset& p : road_presets()) names += (names.empty() ? "" : ", ") + std::string(p.name);
    throw std::invalid_argument("'" + text + "' is neither a preset (" + names + ") nor a node count 1.." +
                                std::to_string(max_vertices));
  }
  return {"", nodes, default_arc_count(nodes)};
}

namespace {

constexpr std::int64_t spacing = 1000;  // metres between grid neighbours
constexpr std::int64_t jitter = 300;    // largest offset of a node from its grid point, each way
constexpr std::uint64_t nodes_per_long_road = 256;
constexpr std::int64_t shortest_long_road = 4, longest_long_road = 16;  // grid cells

__extension__ using uint128 = unsigned __int128;

/// A number in [0, bound) from one 64-bit draw: the high half of draw × bound.
/// Unlike std::uniform_int_distribution, whose algorithm each standard library
/// chooses, this gives the same numbers everywhere; its bias (below
/// bound / 2^64) is immaterial here.
std::uint64_t below(std::mt19937_64& random, std::uint64_t bound) {
  return static_cast<std::uint64_t>((static_cast<uint128>(random()) * bound) >> 64);
}

/// Disjoint sets of vertices (union by size, path halving).
class disjoint_sets {
public:
  explicit disjoint_sets(std::uint64_t n) : parent_(n), size_(n, 1) {
    for (std::uint64_t v = 0; v < n; ++v) parent_[v] = static_cast<vertex_t>(v);
  }
  vertex_t find(vertex_t v) {
    while (parent_[v] != v) v = parent_[v] = parent_[parent_[v]];
    return v;
  }
  /// Joins the sets of a and b; false when they were one set already.
  bool join(vertex_t a, vertex_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    if (size_[a] < size_[b]) std::swap(a, b);
    parent_[b] = a;
    size_[a] += size_[b];
    return true;
  }

private:
  std::vector<vertex_t> parent_;
  std::vector<vertex_t> size_;
};

struct edge {
  vertex_t u, v;
};

}  // namespace

csr_graph generate_road_network(std::uint64_t nodes, std::uint64_t arcs, std::uint64_t seed) {
  if (nodes == 0 || nodes > max_vertices)
    throw std::invalid_argument("a generated graph has 1.." + std::to_string(max_vertices) + " nodes, not " +
                                std::to_string(nodes));
  std::mt19937_64 random(seed);
  const auto columns = static_cast<std::uint64_t>(std::ceil(std::sqrt(static_cast<double>(nodes))));
  const std::uint64_t rows = (nodes + columns - 1) / columns;

  std::vector<std::int32_t> x(nodes), y(nodes);
  for (std::uint64_t v = 0; v < nodes; ++v) {
    x[v] = static_cast<std::int32_t>(static_cast<std::int64_t>(v % columns) * spacing +
                                     static_cast<std::int64_t>(below(random, 2 * jitter + 1)) - jitter);
    y[v] = static_cast<std::int32_t>(static_cast<std::int64_t>(v / columns) * spacing +
                                     static_cast<std::int64_t>(below(random, 2 * jitter + 1)) - jitter);
  }

  // The grid's edges, each as 2 v + (0: to the right, 1: downwards), in random order.
  std::vector<std::uint64_t> grid_edges;
  grid_edges.reserve(2 * nodes);
  for (std::uint64_t v = 0; v < nodes; ++v) {
    if (v % columns + 1 < columns && v + 1 < nodes) grid_edges.push_back(2 * v);
    if (v + columns < nodes) grid_edges.push_back(2 * v + 1);
  }
  for (std::uint64_t i = grid_edges.size(); i > 1; --i) std::swap(grid_edges[i - 1], grid_edges[below(random, i)]);
  const auto grid_edge = [&](std::uint64_t code) {
    const auto u = static_cast<vertex_t>(code / 2);
    return edge{u, static_cast<vertex_t>(code % 2 ? u + columns : u + 1)};
  };

  std::vector<edge> edges;
  const std::uint64_t wanted = arcs / 2;
  edges.reserve(wanted);
  std::vector<std::uint64_t> spare;  // grid edges outside the tree, still in random order
  {
    disjoint_sets components(nodes);
    for (const std::uint64_t code : grid_edges) {
      const edge e = grid_edge(code);
      if (components.join(e.u, e.v)) edges.push_back(e);
      else spare.push_back(code);
    }
  }
  grid_edges = {};

  // Long roads need room for the longest one across the grid.
  const bool room = columns > 2 * longest_long_road && rows > 2 * longest_long_road;
  const std::uint64_t long_roads =
      room ? std::min(nodes / nodes_per_long_road, wanted > edges.size() ? wanted - edges.size() : 0) : 0;
  constexpr std::int64_t directions[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
  for (std::uint64_t made = 0; made < long_roads;) {
    const std::uint64_t u = below(random, nodes);
    const auto& direction = directions[below(random, 8)];
    const auto cells = shortest_long_road +
                       static_cast<std::int64_t>(below(random, longest_long_road - shortest_long_road + 1));
    const std::int64_t column = static_cast<std::int64_t>(u % columns) + direction[0] * cells;
    const std::int64_t row = static_cast<std::int64_t>(u / columns) + direction[1] * cells;
    if (column < 0 || row < 0 || column >= static_cast<std::int64_t>(columns)) continue;
    const auto v = static_cast<std::uint64_t>(row) * columns + static_cast<std::uint64_t>(column);
    if (v >= nodes) continue;
    edges.push_back({static_cast<vertex_t>(u), static_cast<vertex_t>(v)});
    ++made;
  }

  // spare is in random order: its first edges are a random choice.
  const std::uint64_t extra = std::min<std::uint64_t>(wanted > edges.size() ? wanted - edges.size() : 0, spare.size());
  for (std::uint64_t i = 0; i < extra; ++i) edges.push_back(grid_edge(spare[i]));
  spare = {};

  arc_list list;
  list.vertex_count = nodes;
  list.tails.reserve(2 * edges.size());
  list.heads.reserve(2 * edges.size());
  list.weights.reserve(2 * edges.size());
  for (const edge& e : edges) {
    const double dx = x[e.u] - x[e.v], dy = y[e.u] - y[e.v];
    // sqrt is correctly rounded (IEEE 754): the same weight on every platform.
    const auto weight = static_cast<weight_t>(std::max<long long>(1, std::llround(std::sqrt(dx * dx + dy * dy))));
    list.add(e.u, e.v, weight);
    list.add(e.v, e.u, weight);
  }
  return to_csr(std::move(list));
}

}  // namespace hpcoll_dijkstra
