// SPDX-License-Identifier: BSD-3-Clause
// Segmented (pipelined) trees: the vector is cut into segments of
// SegmentBytes and every tree node forwards segment j to all its children in
// the round after it arrived, while segment j + 1 arrives (reduce: the
// mirror, partial results of segment j flowing up while j + 1 is reduced
// below). A tree of height H and k segments takes H + k − 1 rounds, each
// paying for one segment per child: Open MPI's coll_tuned "pipeline" (the
// chain), "binary" and segmented "binomial" broadcasts and reductions.
//
// The trees are laid out in preorder: a node's subtree is the consecutive
// virtual ranks [v, v + subtree) and its children come in increasing order,
// so a tree over real ranks reduces in rank order, which keeps any op's
// order (as binomial's reduce does).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "../plan/plan.hpp"
#include "../plan/ranks.hpp"
#include "../plan/shape.hpp"

namespace hpcoll::schedule {

/// Node v of a chain over `size` ranks: v − 1 → v → v + 1.
struct chain_tree {
  static std::string schedule_name() { return "pipeline"; }
  int v, size;
  constexpr chain_tree(int v_, int size_) : v(v_), size(size_) {}
  static constexpr int height(int size) { return std::max(0, size - 1); }
  constexpr int depth() const { return v; }
  constexpr int parent() const { return v - 1; }
  constexpr int children() const { return v + 1 < size ? 1 : 0; }
  template <class F>
  constexpr void for_each_child(F&& f) const {
    if (v + 1 < size) f(v + 1);
  }
};

/// Node v of a balanced binary tree over `size` ranks in preorder: a node
/// with subtree [v, v + n) has children v + 1 (the first n/2 ranks after it)
/// and v + 1 + n/2 (the rest).
struct binary_tree {
  static std::string schedule_name() { return "segmented_binary"; }
  int v, size;
  int depth_ = 0, parent_ = -1, subtree = 0;

  constexpr binary_tree(int v_, int size_) : v(v_), size(size_), subtree(size_) {
    int first = 0;  // descend from the root to v
    while (first != v) {
      const int left = subtree / 2;
      parent_ = first;
      if (v <= first + left) {
        first += 1;
        subtree = left;
      } else {
        first += 1 + left;
        subtree = (subtree - 1) / 2;
      }
      ++depth_;
    }
  }
  static constexpr int height(int size) {
    int h = 0;
    for (int n = size; n > 1; n /= 2) ++h;
    return h;
  }
  constexpr int depth() const { return depth_; }
  constexpr int parent() const { return parent_; }
  constexpr int children() const { return std::min(subtree - 1, 2); }
  template <class F>
  constexpr void for_each_child(F&& f) const {
    const int left = subtree / 2;
    if (left > 0) f(v + 1);
    if (subtree - 1 - left > 0) f(v + 1 + left);
  }
};

/// Node v of a K-nomial tree over `size` ranks: v's parent clears v's lowest
/// non-zero base-K digit; its children are v + j·K^i (j = 1..K−1) for every
/// position i below that digit (every position for the root).
template <int K>
struct knomial_tree {
  static_assert(K >= 2, "hpcoll: knomial_tree<K> needs K >= 2");
  static std::string schedule_name() {
    return K == 2 ? "segmented_binomial" : "segmented_knomial" + std::to_string(K);
  }
  int v, size;
  constexpr knomial_tree(int v_, int size_) : v(v_), size(size_) {}

  /// The place value of v's lowest non-zero digit (past the top for the root).
  constexpr long long lowest_digit_value() const {
    long long m = 1;
    while (v != 0 && (v / m) % K == 0) m *= K;
    return v == 0 ? static_cast<long long>(size) : m;
  }
  /// The most non-zero digits of any v < size: clearing one digit of size − 1
  /// and setting every digit below it to K − 1 gives each candidate.
  static constexpr int height(int size) {
    if (size <= 1) return 0;
    const int n = size - 1;
    long long top = 1;
    int positions = 1;
    while (top * K <= n) top *= K, ++positions;
    int best = 0, above = 0;
    for (long long m = top; m > 0; m /= K) {
      --positions;
      const auto d = static_cast<int>((n / m) % K);
      if (d > 0) {
        best = std::max(best, above + (d > 1 ? 1 : 0) + positions);
        ++above;
      }
    }
    return std::max(best, above);
  }
  constexpr int depth() const {
    int d = 0;
    for (int u = v; u > 0; u /= K) d += u % K != 0 ? 1 : 0;
    return d;
  }
  constexpr int parent() const {
    const long long m = lowest_digit_value();
    return v - static_cast<int>(((v / m) % K) * m);
  }
  constexpr int children() const {
    int n = 0;
    for_each_child([&](int) { ++n; });
    return n;
  }
  template <class F>
  constexpr void for_each_child(F&& f) const {
    const long long below = lowest_digit_value();
    for (long long m = 1; m < below && v + m < size; m *= K)
      for (long long j = 1; j < K && v + j * m < size; ++j) f(static_cast<int>(v + j * m));
  }
};

/// Segmented pipelined trees over the topology Tree (chain_tree, binary_tree,
/// knomial_tree<K>), with segments of SegmentBytes (default 64 KiB, as
/// segmented_ring). Use the aliases pipeline, segmented_binary and
/// segmented_binomial below.
///
/// No `sampled_cost`: in a given round only the nodes at one depth (bcast)
/// or height (reduce) work, and the busiest of them need not be among the
/// ranks the cost model samples.
template <class Tree, std::size_t SegmentBytes = std::size_t{1} << 16>
struct segmented_tree {
  static_assert(SegmentBytes > 0, "hpcoll: segmented trees need SegmentBytes > 0");
  static std::string name() { return Tree::schedule_name() + "<" + std::to_string(SegmentBytes) + ">"; }

  /// How a vector of `count` elements is cut: `segments` pieces of `segment`
  /// elements, the last possibly shorter (one empty piece when count is 0).
  struct segmentation {
    std::size_t count, segment;
    int segments;
    constexpr segmentation(std::size_t count_, std::size_t elem_size)
        : count(count_), segment(std::max<std::size_t>(1, SegmentBytes / std::max<std::size_t>(1, elem_size))),
          segments(count_ == 0 ? 1 : static_cast<int>((count_ + segment - 1) / segment)) {}
    constexpr bool has(int j) const { return j >= 0 && j < segments; }
    /// Elements of the largest segment: the size of a scratch slot.
    constexpr std::size_t slot() const { return std::min(segment, count); }
    /// Segment j of a vector that starts at element 0 of `buf`.
    constexpr region piece(buffer buf, int j) const {
      const std::size_t first = static_cast<std::size_t>(j) * segment;
      return {buf, first, std::min(segment, count - first)};
    }
  };

  /// Segment j leaves the root in round j and reaches depth d in round j + d − 1.
  struct bcast_plan {
    bcast_shape s;
    segmentation seg{s.count, s.elem_size};
    Tree node{virtual_rank(s.rank, s.root, s.size), s.size};
    constexpr int rounds() const { return s.size > 1 ? Tree::height(s.size) + seg.segments - 1 : 0; }
    constexpr std::size_t scratch_elems() const { return 0; }
    template <class Emit>
    constexpr void round(int r, Emit&& emit) const {
      const int d = node.depth();
      const auto real = [&](int u) { return real_rank(u, s.root, s.size); };
      if (d > 0 && seg.has(r - d + 1)) emit(step::recv(real(node.parent()), seg.piece(buffer::output, r - d + 1)));
      if (seg.has(r - d))
        node.for_each_child([&](int c) { emit(step::send(real(c), seg.piece(buffer::output, r - d))); });
    }
  };

  /// Segment j leaves the nodes at depth d in round j + H − d (H the tree's
  /// height), after their children's parts of it were reduced in the round
  /// before. With a commutative op the tree is rooted at the root; otherwise
  /// it is built over real ranks, every node combining its own value with its
  /// children's in rank order, and rank 0 forwards each finished segment to
  /// the root one round later.
  struct reduce_plan {
    static constexpr bool commutative_only = false;
    reduce_shape s;
    segmentation seg{s.count, s.elem_size};
    int tree_root = s.commutative ? s.root : 0;
    Tree node{virtual_rank(s.rank, tree_root, s.size), s.size};
    int height = Tree::height(s.size);
    int children = node.children();

    constexpr bool is_root() const { return s.rank == s.root; }
    constexpr bool forward() const { return !s.commutative && s.root != 0; }
    constexpr int rounds() const {
      return s.size > 1 ? height + seg.segments - 1 + (forward() ? 1 : 0) : 1;
    }
    /// The root accumulates in its output (the forwarded result overwrites it
    /// later); other nodes with children in one scratch slot, sent before the
    /// next segment's reductions run.
    constexpr std::size_t acc_slots() const { return is_root() || children == 0 ? 0 : 1; }
    constexpr std::size_t scratch_elems() const {
      return s.size > 1 ? (acc_slots() + static_cast<std::size_t>(children)) * seg.slot() : 0;
    }
    constexpr region acc(int j) const {
      return is_root() ? seg.piece(buffer::output, j) : tmp(0, seg.piece(buffer::scratch, j).count);
    }
    constexpr region value(int j) const {
      return seg.piece(is_root() && s.in_place ? buffer::output : buffer::input, j);
    }
    constexpr region landing(int child, int j) const {
      return tmp((acc_slots() + static_cast<std::size_t>(child)) * seg.slot(), seg.piece(buffer::scratch, j).count);
    }

    template <class Emit>
    constexpr void round(int r, Emit&& emit) const {
      if (s.size == 1) {
        if (!s.in_place) emit(step::copy(in(0, s.count), out(0, s.count)));
        return;
      }
      if (forward() && seg.has(r - height)) {  // rank 0 hands finished segments to the root
        if (s.rank == 0) emit(step::send(s.root, acc(r - height)));
        if (is_root()) emit(step::recv(0, seg.piece(buffer::output, r - height)));
      }
      const int d = node.depth();
      const int in_j = r - (height - d - 1);  // the segment arriving from the children
      if (children > 0 && seg.has(in_j)) {
        int i = 0;
        node.for_each_child([&](int c) {
          // The children hold higher ranks than this node, in increasing order: right operands.
          emit(step::recv_reduce(real_rank(c, tree_root, s.size), landing(i, in_j), i == 0 ? value(in_j) : acc(in_j),
                                 acc(in_j), false));
          ++i;
        });
      }
      const int out_j = r - (height - d);  // the segment going to the parent
      if (d > 0 && seg.has(out_j))
        emit(step::send(real_rank(node.parent(), tree_root, s.size), children > 0 ? acc(out_j) : value(out_j)));
    }
  };

  static constexpr bcast_plan plan(const bcast_shape& s) { return {s}; }
  static constexpr reduce_plan plan(const reduce_shape& s) { return {s}; }
};

/// The pipelined chain: root → root + 1 → … in virtual-rank order (reduce:
/// the mirror), p − 2 + k rounds for k segments.
template <std::size_t SegmentBytes = std::size_t{1} << 16>
using pipeline = segmented_tree<chain_tree, SegmentBytes>;
/// The segmented balanced binary tree: ⌊lg p⌋ + k − 1 rounds, two segments sent per round.
template <std::size_t SegmentBytes = std::size_t{1} << 16>
using segmented_binary = segmented_tree<binary_tree, SegmentBytes>;
/// The segmented binomial tree: the root sends each segment to all its lg p children at once.
template <std::size_t SegmentBytes = std::size_t{1} << 16>
using segmented_binomial = segmented_tree<knomial_tree<2>, SegmentBytes>;

}  // namespace hpcoll::schedule
