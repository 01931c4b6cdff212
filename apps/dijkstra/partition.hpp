// SPDX-License-Identifier: BSD-3-Clause
// The 1-D partition of a graph over the ranks: each rank owns a contiguous
// block of vertices and their out-arcs. Rank 0 holds the whole graph after
// loading it and sends each rank its block.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "graph.hpp"

namespace hpcoll_dijkstra {

/// Vertices 0..n-1 in `parts` contiguous blocks whose sizes differ by at most one.
struct block_partition {
  std::uint64_t vertices = 0;
  int parts = 1;

  std::uint64_t begin(int part) const { return static_cast<std::uint64_t>(part) * vertices / static_cast<std::uint64_t>(parts); }
  std::uint64_t end(int part) const { return begin(part + 1); }
  /// The part whose block holds v: the r with begin(r) <= v < begin(r + 1).
  int owner(std::uint64_t v) const {
    return static_cast<int>((static_cast<std::uint64_t>(parts) * (v + 1) - 1) / vertices);
  }
};

/// What every rank knows of the whole graph.
struct graph_summary {
  std::uint64_t vertices = 0;
  std::uint64_t arcs = 0;
  weight_t max_weight = 0;
  double mean_weight = 0;  ///< 0 without arcs
};

graph_summary summarize(const csr_graph& g);

/// One rank's block: its vertices first .. first + arcs.vertex_count() - 1 with
/// their out-arcs (offsets from 0, heads as global vertex ids).
struct local_graph {
  graph_summary whole;
  block_partition partition;
  int rank = 0;
  std::uint64_t first = 0;
  csr_graph arcs;

  std::uint64_t vertex_count() const { return arcs.vertex_count(); }
  bool owns(std::uint64_t v) const { return v >= first && v - first < vertex_count(); }
};

/// Cuts rank 0's graph `whole` (not read on other ranks) into the blocks [starts[r], starts[r + 1])
/// (comm's size + 1 entries, the same on every rank) and hands each rank r its own: the out-arcs
/// of its vertices, offsets from 0, heads as global ids. distribute() cuts by block_partition;
/// a program with another partition (the Parallel BGL's) gives its own starts.
csr_graph scatter_blocks(MPI_Comm comm, const csr_graph& whole, std::span<const std::uint64_t> starts);

/// Cuts rank 0's graph `whole` (not read on other ranks) into blocks, one per
/// rank of comm, and hands each rank its own.
local_graph distribute(MPI_Comm comm, const csr_graph& whole);

/// The distances of vertices first .. first + values.size() - 1 (those a rank has computed).
struct distance_slice {
  std::uint64_t first = 0;
  std::vector<distance_t> values;
};

/// Every rank's slice, assembled on rank 0 into all `vertices` distances
/// (the slices must cover them); empty on the other ranks.
std::vector<distance_t> gather_distances(MPI_Comm comm, const distance_slice& mine, std::uint64_t vertices);

}  // namespace hpcoll_dijkstra
