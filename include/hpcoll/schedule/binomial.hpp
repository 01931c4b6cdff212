// SPDX-License-Identifier: BSD-3-Clause
// Binomial trees: ceil(lg p) rounds. Round i of a top-down tree (bcast,
// scatter) pairs virtual ranks v and v + m with m = 2^(L-1-i); round i of a
// bottom-up tree (reduce, gather) pairs v + 2^i with v.
#pragma once

#include <algorithm>
#include <cstddef>

#include "../plan/ranks.hpp"
#include "../plan/plan.hpp"
#include "../plan/shape.hpp"

namespace hpcoll::schedule {

/// What the tree reduces (binomial, knomial<K>) share besides their trees.
/// With a commutative op the tree is rooted at the root. Otherwise it is built
/// over real ranks (rooted at rank 0, every partial result covering
/// consecutive ranks in order) and rank 0 forwards the result to the root in
/// one round after the tree's.
struct tree_reduce {
  reduce_shape s;
  constexpr int tree_root() const { return s.commutative ? s.root : 0; }
  constexpr bool forward() const { return !s.commutative && s.root != 0; }
  constexpr bool is_root() const { return s.rank == s.root; }
  constexpr int rounds(int tree_rounds) const { return std::max(1, tree_rounds + (forward() ? 1 : 0)); }
  /// Where this rank accumulates: the output at the root, scratch elsewhere.
  constexpr region acc() const { return is_root() ? out(0, s.count) : tmp(0, s.count); }
  /// Before its first child's data arrives (`started`), a rank's value is still
  /// its input, which the root's output holds already when in place.
  constexpr bool acc_holds_value(bool started) const { return started || (is_root() && s.in_place); }
  /// Emits round i when it is not a tree round: the copy of a call on one rank,
  /// or the forward after the tree's rounds. Returns whether it was.
  template <class Emit>
  constexpr bool outside_tree(int i, int tree_rounds, Emit& emit) const {
    const std::size_t n = s.count;
    if (s.size == 1) {
      if (!s.in_place) emit(step::copy(in(0, n), out(0, n)));
      return true;
    }
    if (i < tree_rounds) return false;
    if (s.rank == 0) emit(step::send(s.root, acc()));
    if (is_root()) emit(step::recv(0, out(0, n)));
    return true;
  }
};

/// Binomial trees for the rooted collectives.
struct binomial {
  static constexpr const char* name = "binomial";
  /// The cost model may walk a sample of ranks (select/cost.hpp): each round's busiest rank is among them.
  static constexpr bool sampled_cost = true;

  /// The tree of one call: virtual ranks relative to the root.
  struct tree {
    int size, root, v, levels;
    constexpr tree(int rank, int size_, int root_)
        : size(size_), root(root_), v(virtual_rank(rank, root_, size_)), levels(ceil_log2(size_)) {}
    constexpr int real(int u) const { return real_rank(u, root, size); }
    /// Virtual ranks below v: [v, v + subtree()) (v's own subtree).
    constexpr int subtree() const { return v == 0 ? size : std::min(lowest_bit(v), size - v); }
    /// Top-down round i pairs parents v (v % 2m == 0) with children v + m.
    constexpr int top_down_mask(int i) const { return 1 << (levels - 1 - i); }
    constexpr bool sends_down(int m) const { return v % (2 * m) == 0 && v + m < size; }
    constexpr bool receives_from_above(int m) const { return v % (2 * m) == m; }
    /// Whether v has received a child's data before bottom-up round with mask m.
    constexpr bool has_child_below(int m) const {
      for (int c = 1; c < m; c <<= 1)
        if (v % (2 * c) == 0 && v + c < size) return true;
      return false;
    }
    /// The blocks of n elements of virtual ranks [first, last) (one piece, see
    /// pieces()): at the root in `at_root`, where they sit in real-rank order;
    /// elsewhere in scratch, in virtual-rank order from v.
    constexpr region blocks(buffer at_root, std::size_t n, int first, int last) const {
      const auto len = static_cast<std::size_t>(last - first) * n;
      if (v == 0) return {at_root, static_cast<std::size_t>(real(first)) * n, len};
      return tmp(static_cast<std::size_t>(first - v) * n, len);
    }
    /// Virtual ranks [first, last) in real-block order: they run up to size − 1
    /// and wrap to real rank 0 at virtual rank size − root. Calls f(first, last)
    /// for each unwrapped piece.
    template <class F>
    constexpr void pieces(int first, int last, F&& f) const {
      const int wrap = size - root;
      if (first < wrap && wrap < last) {
        f(first, wrap);
        f(wrap, last);
      } else {
        f(first, last);
      }
    }
  };

  /// Each parent sends the whole buffer to its children, largest subtree first.
  struct bcast_plan {
    bcast_shape s;
    tree t{s.rank, s.size, s.root};
    constexpr int rounds() const { return t.levels; }
    constexpr std::size_t scratch_elems() const { return 0; }
    template <class Emit>
    constexpr void round(int i, Emit&& emit) const {
      const int m = t.top_down_mask(i);
      if (t.sends_down(m)) emit(step::send(t.real(t.v + m), out(0, s.count)));
      if (t.receives_from_above(m)) emit(step::recv(t.real(t.v - m), out(0, s.count)));
    }
  };

  /// Partial results flow up the tree. With a commutative op the tree is rooted
  /// at the root; otherwise it is built over real ranks, so every partial result
  /// covers consecutive ranks in order, and rank 0 forwards the result to the
  /// root in one extra round (see tree_reduce).
  struct reduce_plan {
    static constexpr bool commutative_only = false;
    reduce_shape s;
    tree_reduce r{s};
    tree t{s.rank, s.size, r.tree_root()};
    constexpr int rounds() const { return r.rounds(t.levels); }
    constexpr region landing() const { return tmp(r.is_root() ? 0 : s.count, s.count); }
    constexpr std::size_t scratch_elems() const { return (r.is_root() ? 1 : 2) * s.count; }

    template <class Emit>
    constexpr void round(int i, Emit&& emit) const {
      if (r.outside_tree(i, t.levels, emit)) return;
      const std::size_t n = s.count;
      const int m = 1 << i;
      const bool started = t.has_child_below(m);
      const bool acc_holds_value = r.acc_holds_value(started);
      if (t.v % (2 * m) == m) {
        emit(step::send(t.real(t.v - m), acc_holds_value ? r.acc() : in(0, n)));
      } else if (t.v % (2 * m) == 0 && t.v + m < s.size) {
        const region value = acc_holds_value ? r.acc() : in(0, n);
        // The child's group holds higher ranks, so it is the right operand; the
        // first contribution can land straight in acc unless acc holds the input.
        const region land = acc_holds_value ? landing() : r.acc();
        emit(step::recv_reduce(t.real(t.v + m), land, value, r.acc(), false));
      }
    }
  };

  /// Subtrees flow up; each rank forwards its subtree's blocks in virtual-rank
  /// order. Pieces that wrap past real rank size − 1 travel as two messages, so
  /// the root receives every block straight into its output.
  struct gather_plan {
    gather_shape s;
    tree t{s.rank, s.size, s.root};
    constexpr bool is_root() const { return t.v == 0; }
    constexpr int rounds() const { return std::max(1, t.levels); }
    constexpr std::size_t scratch_elems() const { return is_root() || t.subtree() == 1 ? 0 : t.subtree() * s.count; }
    constexpr region block(int first, int last) const { return t.blocks(buffer::output, s.count, first, last); }
    template <class Emit>
    constexpr void round(int i, Emit&& emit) const {
      const std::size_t n = s.count;
      if (i == 0 && is_root() && !s.in_place) emit(step::copy(in(0, n), block(0, 1)));
      if (i == 0 && !is_root() && t.subtree() > 1) emit(step::copy(in(0, n), block(t.v, t.v + 1)));
      if (t.levels == 0) return;
      const int m = 1 << i;
      if (t.v % (2 * m) == m) {
        const int parent = t.real(t.v - m);
        if (t.subtree() == 1)
          emit(step::send(parent, in(0, n)));
        else
          t.pieces(t.v, t.v + t.subtree(), [&](int a, int b) { emit(step::send(parent, block(a, b))); });
      } else if (t.v % (2 * m) == 0 && t.v + m < s.size) {
        const int child = t.v + m;
        const int last = std::min(t.v + 2 * m, s.size);
        t.pieces(child, last, [&](int a, int b) { emit(step::recv(t.real(child), block(a, b))); });
      }
    }
  };

  /// The mirror of gather: subtrees flow down from the root.
  struct scatter_plan {
    scatter_shape s;
    tree t{s.rank, s.size, s.root};
    constexpr bool is_root() const { return t.v == 0; }
    constexpr int rounds() const { return std::max(1, t.levels); }
    constexpr std::size_t scratch_elems() const { return is_root() || t.subtree() == 1 ? 0 : t.subtree() * s.count; }
    constexpr region block(int first, int last) const { return t.blocks(buffer::input, s.count, first, last); }
    template <class Emit>
    constexpr void round(int i, Emit&& emit) const {
      const std::size_t n = s.count;
      if (i == 0 && is_root() && !s.in_place) emit(step::copy(block(0, 1), out(0, n)));
      if (t.levels == 0) return;
      const int m = t.top_down_mask(i);
      // A rank that received its subtree in an earlier round keeps its own block.
      if (!is_root() && t.subtree() > 1 && m == lowest_bit(t.v) / 2)
        emit(step::copy(block(t.v, t.v + 1), out(0, n)));
      if (t.sends_down(m)) {
        const int child = t.v + m;
        const int last = std::min(t.v + 2 * m, s.size);
        t.pieces(child, last, [&](int a, int b) { emit(step::send(t.real(child), block(a, b))); });
      }
      if (t.receives_from_above(m)) {
        const int parent = t.real(t.v - m);
        if (t.subtree() == 1)
          emit(step::recv(parent, out(0, n)));
        else
          t.pieces(t.v, t.v + t.subtree(), [&](int a, int b) { emit(step::recv(parent, block(a, b))); });
      }
    }
  };

  /// Scatter phase of a composite bcast: blocks live at their final place in
  /// `data` on every rank, so a subtree's blocks are one contiguous region.
  struct scatter_phase_plan {
    scatter_phase s;
    tree t{s.rank, s.size, s.root};
    constexpr int rounds() const { return t.levels; }
    constexpr std::size_t scratch_elems() const { return 0; }
    template <class Emit>
    constexpr void round(int i, Emit&& emit) const {
      const int m = t.top_down_mask(i);
      if (t.sends_down(m)) {
        const int child = t.v + m;
        emit(step::send(t.real(child), s.layout.blocks(s.data, s.base, child, std::min(t.v + 2 * m, s.size))));
      }
      if (t.receives_from_above(m))
        emit(step::recv(t.real(t.v - m), s.layout.blocks(s.data, s.base, t.v, t.v + t.subtree())));
    }
  };

  /// Gather phase of a composite reduce: every rank's block already lies at
  /// its place in `data`, so a subtree's blocks are at most two regions (they
  /// wrap past real rank size − 1), sent as they are.
  struct gather_phase_plan {
    gather_phase s;
    tree t{s.rank, s.size, s.root};
    constexpr int rounds() const { return t.levels; }
    constexpr std::size_t scratch_elems() const { return s.data == buffer::scratch ? s.base + s.layout.total : 0; }
    /// Blocks of virtual ranks [first, last), which do not wrap.
    constexpr region blocks(int first, int last) const {
      const int real_first = t.real(first);
      return s.layout.blocks(s.data, s.base, real_first, real_first + (last - first));
    }
    template <class Emit>
    constexpr void round(int i, Emit&& emit) const {
      const int m = 1 << i;
      if (t.v % (2 * m) == m) {
        const int parent = t.real(t.v - m);
        t.pieces(t.v, t.v + t.subtree(), [&](int a, int b) { emit(step::send(parent, blocks(a, b))); });
      } else if (t.v % (2 * m) == 0 && t.v + m < s.size) {
        const int child = t.v + m;
        t.pieces(child, std::min(t.v + 2 * m, s.size),
                 [&](int a, int b) { emit(step::recv(t.real(child), blocks(a, b))); });
      }
    }
  };

  static constexpr bcast_plan plan(const bcast_shape& s) { return {s}; }
  static constexpr reduce_plan plan(const reduce_shape& s) { return {s}; }
  static constexpr gather_plan plan(const gather_shape& s) { return {s}; }
  static constexpr scatter_plan plan(const scatter_shape& s) { return {s}; }
  static constexpr scatter_phase_plan plan(const scatter_phase& s) { return {s}; }
  static constexpr gather_phase_plan plan(const gather_phase& s) { return {s}; }
};

}  // namespace hpcoll::schedule
