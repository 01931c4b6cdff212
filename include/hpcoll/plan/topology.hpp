// SPDX-License-Identifier: BSD-3-Clause
// The node structure of a communicator: which ranks share a node (and so
// shared memory), each rank's place on its node, the node leaders. A pure
// value, built from a rank → node map: how it is discovered under MPI is
// exec/topology.hpp's business. Shapes refer to a layout through a
// node_layout_ref, which is compared by the layout's fingerprint, so plans
// recorded for one shape stay right for any communicator whose layout equals it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace hpcoll {

/// How ranks are numbered across nodes.
enum class node_numbering : std::uint8_t {
  block,        ///< node by node: every node's ranks are consecutive, nodes in rank order
  round_robin,  ///< rank r on node r mod nodes (nodes of equal size, or the last ones one rank short)
  irregular,    ///< any other map
};

/// For each rank of a communicator its node and its rank within the node;
/// per node its size, its ranks in increasing order and its leader (its
/// lowest rank). Nodes are numbered in the order of their lowest ranks.
class node_layout {
public:
  /// Every rank on one node.
  constexpr node_layout() : node_layout(std::vector<int>{0}) {}

  /// From the node each rank is on, by any ids (equal ids: same node).
  constexpr explicit node_layout(std::span<const int> node_ids) { build(node_ids); }
  constexpr explicit node_layout(const std::vector<int>& node_ids) : node_layout(std::span<const int>(node_ids)) {}

  /// `nodes` nodes of `per_node` ranks each, numbered block-wise or round-robin.
  static constexpr node_layout regular(int nodes, int per_node, node_numbering numbering = node_numbering::block) {
    if (nodes < 1 || per_node < 1) throw std::invalid_argument("node_layout: nodes and ranks per node must be positive");
    std::vector<int> ids(static_cast<std::size_t>(nodes) * static_cast<std::size_t>(per_node));
    for (std::size_t r = 0; r < ids.size(); ++r)
      ids[r] = numbering == node_numbering::round_robin ? static_cast<int>(r % static_cast<std::size_t>(nodes))
                                                        : static_cast<int>(r / static_cast<std::size_t>(per_node));
    return node_layout(ids);
  }
  /// `size` ranks numbered node by node, `per_node` to a node; the last node
  /// holds what is left (size mod per_node ranks, when not 0).
  static constexpr node_layout by_node_size(int size, int per_node) {
    if (size < 1 || per_node < 1) throw std::invalid_argument("node_layout: size and ranks per node must be positive");
    std::vector<int> ids(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) ids[static_cast<std::size_t>(r)] = r / per_node;
    return node_layout(ids);
  }
  /// Nodes of the given sizes, numbered node by node.
  static constexpr node_layout from_sizes(std::span<const int> sizes) {
    std::vector<int> ids;
    for (std::size_t j = 0; j < sizes.size(); ++j) {
      if (sizes[j] < 1) throw std::invalid_argument("node_layout: every node needs at least one rank");
      ids.insert(ids.end(), static_cast<std::size_t>(sizes[j]), static_cast<int>(j));
    }
    return node_layout(ids);
  }
  static constexpr node_layout from_sizes(std::initializer_list<int> sizes) {
    return from_sizes(std::span<const int>(sizes.begin(), sizes.size()));
  }

  constexpr int size() const { return static_cast<int>(node_of_.size()); }
  constexpr int nodes() const { return static_cast<int>(leaders_.size()); }
  constexpr int node_of(int rank) const { return node_of_[index(rank)]; }
  /// The rank's place among its node's ranks (0 for the leader).
  constexpr int local_rank(int rank) const { return local_of_[index(rank)]; }
  constexpr int node_size(int node) const { return first_[index(node) + 1] - first_[index(node)]; }
  /// The node's ranks, in increasing order.
  constexpr std::span<const int> members(int node) const {
    return std::span<const int>(members_).subspan(static_cast<std::size_t>(first_[index(node)]),
                                                  static_cast<std::size_t>(node_size(node)));
  }
  constexpr int leader(int node) const { return leaders_[index(node)]; }
  /// Every rank, node by node (each node's in increasing order), and where
  /// each node's start in that list: members(j) is all_members()[node_starts()[j] ...].
  constexpr std::span<const int> all_members() const { return members_; }
  constexpr std::span<const int> node_starts() const { return first_; }
  /// Every node's leader, in node order.
  constexpr std::span<const int> leaders() const { return leaders_; }
  constexpr bool is_leader(int rank) const { return local_rank(rank) == 0; }
  /// The distinct node sizes, increasing.
  constexpr std::span<const int> node_sizes() const { return sizes_; }
  constexpr int min_node_size() const { return sizes_.front(); }
  constexpr int max_node_size() const { return sizes_.back(); }
  constexpr node_numbering numbering() const { return numbering_; }
  /// Whether every node's ranks are consecutive and nodes come in rank order:
  /// then a reduction node by node, then across nodes in node order, keeps rank order.
  constexpr bool ranks_consecutive() const { return numbering_ == node_numbering::block; }
  /// A hash of the rank → node map (never 0): equal layouts have equal fingerprints.
  constexpr std::uint64_t fingerprint() const { return fingerprint_; }

  friend constexpr bool operator==(const node_layout& a, const node_layout& b) { return a.node_of_ == b.node_of_; }

private:
  static constexpr std::size_t index(int i) { return static_cast<std::size_t>(i); }

  constexpr void build(std::span<const int> ids) {
    if (ids.empty()) throw std::invalid_argument("node_layout: a communicator has at least one rank");
    const std::size_t p = ids.size();
    node_of_.assign(p, -1);
    local_of_.assign(p, 0);
    // Nodes in the order of their first rank; a linear search of earlier ranks
    // would be quadratic, so remember each id's node by sorting (id, rank) pairs.
    std::vector<std::pair<int, int>> by_id(p);
    for (std::size_t r = 0; r < p; ++r) by_id[r] = {ids[r], static_cast<int>(r)};
    std::sort(by_id.begin(), by_id.end());
    std::vector<int> first_rank_of;  // per group of equal ids: its lowest rank
    std::vector<int> group_of(p);
    for (std::size_t i = 0; i < p; ++i) {
      if (i == 0 || by_id[i].first != by_id[i - 1].first) first_rank_of.push_back(by_id[i].second);
      group_of[static_cast<std::size_t>(by_id[i].second)] = static_cast<int>(first_rank_of.size()) - 1;
    }
    // Renumber groups by their lowest rank.
    std::vector<int> order(first_rank_of.size());
    for (std::size_t g = 0; g < order.size(); ++g) order[g] = static_cast<int>(g);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return first_rank_of[index(a)] < first_rank_of[index(b)]; });
    std::vector<int> node_of_group(order.size());
    for (std::size_t j = 0; j < order.size(); ++j) node_of_group[index(order[j])] = static_cast<int>(j);
    const std::size_t nodes = order.size();
    std::vector<int> counts(nodes, 0);
    for (std::size_t r = 0; r < p; ++r) {
      const int node = node_of_group[index(group_of[r])];
      node_of_[r] = node;
      local_of_[r] = counts[index(node)]++;
    }
    first_.assign(nodes + 1, 0);
    for (std::size_t j = 0; j < nodes; ++j) first_[j + 1] = first_[j] + counts[j];
    members_.assign(p, 0);
    for (std::size_t r = 0; r < p; ++r)
      members_[index(first_[index(node_of_[r])] + local_of_[r])] = static_cast<int>(r);
    leaders_.resize(nodes);
    for (std::size_t j = 0; j < nodes; ++j) leaders_[j] = members_[index(first_[j])];
    sizes_ = counts;
    std::sort(sizes_.begin(), sizes_.end());
    sizes_.erase(std::unique(sizes_.begin(), sizes_.end()), sizes_.end());
    numbering_ = classify();
    std::uint64_t h = 0xcbf29ce484222325ull ^ p;
    for (int node : node_of_) h = (h ^ static_cast<std::uint64_t>(node)) * 0x100000001b3ull;
    fingerprint_ = h == 0 ? 1 : h;
  }

  constexpr node_numbering classify() const {
    const int p = size();
    bool block = true, round_robin = true;
    for (int r = 0; r < p; ++r) {
      if (node_of(r) != (r == 0 ? 0 : node_of(r - 1) + (local_rank(r) == 0 ? 1 : 0))) block = false;
      if (node_of(r) != r % nodes()) round_robin = false;
    }
    if (block) return node_numbering::block;
    return round_robin ? node_numbering::round_robin : node_numbering::irregular;
  }

  std::vector<int> node_of_, local_of_, first_, members_, leaders_, sizes_;
  node_numbering numbering_ = node_numbering::block;
  std::uint64_t fingerprint_ = 0;
};

/// What a shape holds of its communicator's node layout: a pointer to the
/// (immutable, communicator-owned) layout and its fingerprint. Shapes are
/// compared by value, so two refs are equal when their layouts are.
struct node_layout_ref {
  const node_layout* layout = nullptr;
  std::uint64_t fingerprint = 0;

  constexpr node_layout_ref() = default;
  constexpr node_layout_ref(const node_layout& l) : layout(&l), fingerprint(l.fingerprint()) {}  // NOLINT: implicit by design
  constexpr explicit operator bool() const { return layout != nullptr; }
  constexpr const node_layout& operator*() const { return *layout; }
  constexpr const node_layout* operator->() const { return layout; }
  [[gnu::always_inline]] friend constexpr bool operator==(const node_layout_ref& a, const node_layout_ref& b) {
    return a.fingerprint == b.fingerprint;
  }
};

}  // namespace hpcoll
