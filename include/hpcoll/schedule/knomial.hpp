// SPDX-License-Identifier: BSD-3-Clause
// K-nomial trees: ceil(log_K p) rounds. Round i of the broadcast lets every
// parent v (v a multiple of K·m, m = K^(L−1−i)) send to its K − 1 children
// v + m, …, v + (K − 1)·m at once; the reduce runs the rounds bottom-up. Fewer
// rounds than binomial's ceil(lg p) for K − 1 messages a round: it wins for
// small messages where the gap between messages is below the latency.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "../plan/plan.hpp"
#include "../plan/ranks.hpp"
#include "../plan/shape.hpp"
#include "binomial.hpp"

namespace hpcoll::schedule {

/// K-nomial trees (K >= 2; knomial<2> is binomial) for bcast and reduce.
template <int K>
struct knomial {
  static_assert(K >= 2, "hpcoll: knomial<K> needs K >= 2");
  static std::string name() { return "knomial<" + std::to_string(K) + ">"; }
  /// The cost model may walk a sample of ranks (select/cost.hpp): virtual
  /// rank 0 has the most children in every round, so it is the busiest.
  static constexpr bool sampled_cost = true;

  /// The tree of one call: virtual ranks relative to `root`.
  struct tree {
    int size, root, v, levels = 0;
    long long top = 1;  ///< K^(levels − 1): the distance of round 0's children
    constexpr tree(int rank, int size_, int root_) : size(size_), root(root_), v(virtual_rank(rank, root_, size_)) {
      for (long long reach = 1; reach < size; reach *= K) ++levels;
      for (int i = 1; i < levels; ++i) top *= K;
    }
    constexpr int real(long long u) const { return real_rank(static_cast<int>(u), root, size); }
    /// v's position in the round with children at distance m: its parent
    /// (v − offset) when 0 < offset and v is a multiple of m; a parent itself when offset is 0.
    constexpr long long offset(long long m) const { return v % (K * m); }
    /// Calls f(child) for v's children at distance m, in increasing order.
    template <class F>
    constexpr void for_each_child(long long m, F&& f) const {
      for (long long c = v + m; c < size && c < v + K * m; c += m) f(c);
    }
    /// Whether v has received a child's data before the bottom-up round with distance m.
    constexpr bool has_child_below(long long m) const {
      for (long long c = 1; c < m; c *= K)
        if (v % (K * c) == 0 && v + c < size) return true;
      return false;
    }
  };

  struct bcast_plan {
    bcast_shape s;
    tree t{s.rank, s.size, s.root};
    constexpr int rounds() const { return t.levels; }
    constexpr std::size_t scratch_elems() const { return 0; }
    template <class Emit>
    constexpr void round(int i, Emit&& emit) const {
      long long m = t.top;
      for (int k = 0; k < i; ++k) m /= K;
      if (t.v % m != 0) return;
      const long long offset = t.offset(m);
      if (offset == 0)
        t.for_each_child(m, [&](long long c) { emit(step::send(t.real(c), out(0, s.count))); });
      else
        emit(step::recv(t.real(t.v - offset), out(0, s.count)));
    }
  };

  /// Partial results flow up the tree, as in binomial's reduce (tree_reduce):
  /// every group covers consecutive ranks, children in increasing order, so
  /// any op keeps its order.
  struct reduce_plan {
    static constexpr bool commutative_only = false;
    reduce_shape s;
    tree_reduce r{s};
    tree t{s.rank, s.size, r.tree_root()};
    constexpr int rounds() const { return r.rounds(t.levels); }
    /// The landing slot of the j-th child (from 0) of a round.
    constexpr region landing(int j) const {
      return tmp((static_cast<std::size_t>(j) + (r.is_root() ? 0 : 1)) * s.count, s.count);
    }
    constexpr std::size_t scratch_elems() const {
      return static_cast<std::size_t>(K - 1 + (r.is_root() ? 0 : 1)) * s.count;
    }

    template <class Emit>
    constexpr void round(int i, Emit&& emit) const {
      if (r.outside_tree(i, t.levels, emit)) return;
      const std::size_t n = s.count;
      long long m = 1;
      for (int k = 0; k < i; ++k) m *= K;
      if (t.v % m != 0) return;
      const bool acc_holds_value = r.acc_holds_value(t.has_child_below(m));
      const long long offset = t.offset(m);
      if (offset != 0) {
        emit(step::send(t.real(t.v - offset), acc_holds_value ? r.acc() : in(0, n)));
        return;
      }
      int j = 0;
      t.for_each_child(m, [&](long long c) {
        // Children hold higher ranks, in increasing order: right operands. The
        // first starts from the input; the rest add to acc in turn.
        const bool first_from_input = j == 0 && !acc_holds_value;
        emit(step::recv_reduce(t.real(c), landing(j), first_from_input ? in(0, n) : r.acc(), r.acc(), false));
        ++j;
      });
    }
  };

  static constexpr bcast_plan plan(const bcast_shape& s) { return {s}; }
  static constexpr reduce_plan plan(const reduce_shape& s) { return {s}; }
};

}  // namespace hpcoll::schedule
