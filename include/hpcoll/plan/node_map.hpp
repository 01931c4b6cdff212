// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::node_map: which node each rank of a communicator is on, and the
// ranks of each node — what the two-level cost model (select/node_cost.hpp)
// and the network simulator (analysis/simulate.hpp) read of a cluster.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "../error.hpp"

namespace hpcoll {

/// Which node each rank is on, and the ranks of each node: the index the
/// two-level walk reads. Nodes are numbered 0 .. nodes() − 1, each with a rank.
class node_map {
public:
  /// node_of(q) for q in [0, ranks): the node of rank q. Throws hpcoll::error
  /// when a node number is negative or a number below the largest has no rank.
  template <class NodeOf>
  node_map(int ranks, NodeOf&& node_of) : node_(static_cast<std::size_t>(std::max(ranks, 0))) {
    int count = 0;
    for (int q = 0; q < ranks; ++q) {
      const int n = node_of(q);
      if (n < 0) throw error("node_map", "", "rank " + std::to_string(q) + " is on node " + std::to_string(n));
      node_[idx(q)] = n;
      count = std::max(count, n + 1);
    }
    first_.assign(idx(count) + 1, 0);
    for (int n : node_) ++first_[idx(n) + 1];
    for (std::size_t n = 0; n < idx(count); ++n) {
      if (first_[n + 1] == 0)
        throw error("node_map", "", "node " + std::to_string(n) + " has no rank (nodes are numbered 0 .. " +
                                        std::to_string(count - 1) + ")");
      first_[n + 1] += first_[n];
    }
    ranks_.resize(node_.size());
    std::vector<int> next(first_.begin(), first_.end() - 1);
    for (int q = 0; q < ranks; ++q) ranks_[idx(next[idx(node_[idx(q)])]++)] = q;
    per_node_ = count > 0 && ranks % count == 0 ? ranks / count : 0;
    for (int q = 0; per_node_ > 0 && q < ranks; ++q)
      if (node_[idx(q)] != q / per_node_) per_node_ = 0;
  }

  /// `nodes` × `ranks_per_node` ranks numbered node by node (`blocks`) or
  /// round-robin over the nodes.
  static node_map blocks(int nodes, int ranks_per_node) {
    return node_map(nodes * ranks_per_node, [=](int q) { return q / ranks_per_node; });
  }
  static node_map round_robin(int nodes, int ranks_per_node) {
    return node_map(nodes * ranks_per_node, [=](int q) { return q % nodes; });
  }

  int size() const { return static_cast<int>(node_.size()); }
  int nodes() const { return static_cast<int>(first_.size()) - 1; }
  int node_of(int rank) const { return node_[idx(rank)]; }
  std::span<const int> ranks_on(int node) const {
    return {ranks_.data() + first_[idx(node)], static_cast<std::size_t>(first_[idx(node) + 1] - first_[idx(node)])};
  }
  /// The ranks per node when every node has as many and they are numbered
  /// node by node; 0 otherwise.
  int regular_blocks() const { return per_node_; }

private:
  static std::size_t idx(int i) { return static_cast<std::size_t>(i); }
  std::vector<int> node_, first_, ranks_;
  int per_node_ = 0;
};

}  // namespace hpcoll
