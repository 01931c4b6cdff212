// SPDX-License-Identifier: BSD-3-Clause
// The linear (flat) schedules: every message goes straight to or from its
// final owner. The baseline of MPI libraries' "basic linear" algorithms.
#pragma once

#include <algorithm>
#include <cstddef>

#include "flat.hpp"
#include "../plan/ranks.hpp"
#include "../plan/plan.hpp"
#include "../plan/shape.hpp"
#include "compose.hpp"
#include "properties.hpp"

namespace hpcoll::schedule {

/// Linear schedules: one hop from every sender to every receiver.
struct linear {
  static constexpr const char* name = "linear";
  static constexpr int all(int size) { return size > 1 ? size - 1 : 1; }
  /// The cost model may walk a sample of ranks (select/cost.hpp): a root, or the first and
  /// last ranks of an allgather, are the busiest of each round; the reduce-scatter states
  /// its busiest rank (for blocks alike, the only ones a candidate uses it with).
  static constexpr bool sampled_cost = true;
  /// Its plans give the cost walk hints: one load for O(p) messages, rounds that cost alike.
  static constexpr bool cost_hints = true;

  /// The root sends the whole buffer to every other rank in one round.
  struct bcast_plan {
    bcast_shape s;
    constexpr int rounds() const { return 1; }
    constexpr std::size_t scratch_elems() const { return 0; }
    template <class Emit>
    constexpr void round(int, Emit&& emit) const {
      if (s.rank == s.root) {
        if constexpr (cost_hint_sink<Emit>) {
          emit.load(round_load::sending(s.size - 1, s.count));
          return;
        }
        for (int q = 0; q < s.size; ++q)
          if (q != s.root) emit(step::send(q, out(0, s.count)));
      } else {
        emit(step::recv(s.root, out(0, s.count)));
      }
    }
  };

  /// The root receives one contribution per round and combines it in rank
  /// order: starting from its own value it takes root+1, …, size-1 on the right,
  /// then root-1, …, 0 on the left. Works for non-commutative ops and in place.
  struct reduce_plan {
    reduce_shape s;
    constexpr int rounds() const { return std::max(1, s.size - 1); }
    constexpr std::size_t scratch_elems() const { return s.rank == s.root && s.size > 1 ? s.count : 0; }
    /// The rank the root hears from in round t.
    constexpr int sender(int t) const { return t < s.size - 1 - s.root ? s.root + 1 + t : s.size - 2 - t; }
    template <class Emit>
    constexpr void round(int t, Emit&& emit) const {
      // The root, the busiest rank, receives alike in every round after the first.
      if constexpr (cost_hint_sink<Emit>)
        if (t >= 1) emit.repeat(1, rounds() - t);
      const region acc = out(0, s.count);
      if (s.rank == s.root) {
        if (t == 0 && !s.in_place) emit(step::copy(in(0, s.count), acc));
        if (s.size == 1) return;
        const int from = sender(t);
        emit(step::recv_reduce(from, tmp(0, s.count), acc, acc, from < s.root));
      } else if (sender(t) == s.rank) {
        emit(step::send(s.root, in(0, s.count)));
      }
    }
  };

  /// Allgather phase: every rank sends its block to every other rank at once.
  struct allgather_plan {
    /// Every rank sends its block to every other (round_nodes_alike).
    static constexpr bool nodes_alike = true;
    allgather_phase s;
    constexpr int rounds() const { return s.size > 1 ? 1 : 0; }
    constexpr std::size_t scratch_elems() const { return 0; }
    template <class Emit>
    constexpr void round(int, Emit&& emit) const {
      const int v = virtual_rank(s.rank, s.root, s.size);
      if constexpr (cost_hint_sink<Emit>) {
        emit.load(round_load::sending(s.size - 1, s.own_block(v).count));
        const std::size_t mine = s.layout.count(v);
        // Blocks are empty only when there are fewer elements than blocks.
        const auto filled = static_cast<int>(std::min<std::size_t>(s.layout.total, static_cast<std::size_t>(s.size)));
        emit.load({.recvs = filled - (mine > 0 ? 1 : 0), .in = s.layout.total - mine});
        return;
      }
      for (int u = 0; u < s.size; ++u) {
        if (u == v) continue;
        const int peer = real_rank(u, s.root, s.size);
        emit(step::send(peer, s.own_block(v)));
        emit(step::recv(peer, s.layout.blocks(s.data, s.base, u, u + 1)));
      }
    }
  };

  /// Scatter phase: the root sends each block to its owner at once.
  struct scatter_phase_plan {
    scatter_phase s;
    constexpr int rounds() const { return s.size > 1 ? 1 : 0; }
    constexpr std::size_t scratch_elems() const { return 0; }
    template <class Emit>
    constexpr void round(int, Emit&& emit) const {
      const int v = virtual_rank(s.rank, s.root, s.size);
      if (v == 0) {
        for (int u = 1; u < s.size; ++u)
          emit(step::send(real_rank(u, s.root, s.size), s.layout.blocks(s.data, s.base, u, u + 1)));
      } else {
        emit(step::recv(s.root, s.layout.blocks(s.data, s.base, v, v + 1)));
      }
    }
  };

  /// Reduce-scatter phase ("direct"): block j of every contribution goes to rank
  /// j, which combines one contribution per round in rank order like the linear
  /// reduce, so non-commutative ops are fine.
  struct reduce_scatter_plan {
    reduce_scatter_phase s;
    constexpr int rounds() const { return std::max(1, s.size - 1); }
    constexpr std::size_t scratch_elems() const {
      return s.size > 1 ? s.scratch_base + s.layout.count(0) : 0;
    }
    /// For the cost walk, with blocks alike: in round t rank p − 2 − t sends its blocks
    /// to the t + 1 owners above it and, while p − 3 − 2t >= 0, one to owner
    /// p − 3 − 2t; every other rank sends one at most and all receive alike, so it is
    /// the busiest. Its sends grow by one a round, in two runs split where the lone
    /// send stops, after round 0 (which also copies the own block).
    template <class Emit>
    constexpr void state_busiest(int t, Emit& emit) const {
      const std::size_t n = s.layout.count(0);
      const bool lone_send = s.size - 3 - 2 * t >= 0;
      const int run_end = t == 0 ? 0 : lone_send ? (s.size - 3) / 2 : s.size - 2;
      round_load first = round_load::sending(t + 1 + (lone_send ? 1 : 0), n);
      first += round_load::receiving(1, n);
      first.reduced = n;
      if (t == 0)
        first.add(step::copy(s.layout.blocks(s.source, s.source_base, 0, 1), s.layout.blocks(s.acc, s.acc_base, 0, 1)));
      emit.busiest(run_end - t + 1, first, round_load::sending(1, n));
    }
    /// The rank that `owner` hears from in round t (same order as reduce_plan).
    constexpr int sender(int owner, int t) const { return t < s.size - 1 - owner ? owner + 1 + t : s.size - 2 - t; }
    template <class Emit>
    constexpr void round(int t, Emit&& emit) const {
      if constexpr (cost_hint_sink<Emit>)
        if (s.size > 1 && s.layout.total % static_cast<std::size_t>(s.size) == 0) state_busiest(t, emit);
      const int r = s.rank;
      const region acc = s.layout.blocks(s.acc, s.acc_base, r, r + 1);
      if (t == 0) emit(step::copy(s.layout.blocks(s.source, s.source_base, r, r + 1), acc));
      if (s.size == 1) return;
      const int from = sender(r, t);
      emit(step::recv_reduce(from, tmp(s.scratch_base, acc.count), acc, acc, from < r));
      // This rank sends block j to every owner j that hears from it in round t:
      // owners below it in their first rounds, owners above it afterwards.
      if (r - t - 1 >= 0) {
        const int owner = r - t - 1;
        emit(step::send(owner, s.layout.blocks(s.source, s.source_base, owner, owner + 1)));
      }
      if (r == s.size - 2 - t)
        for (int owner = r + 1; owner < s.size; ++owner)
          emit(step::send(owner, s.layout.blocks(s.source, s.source_base, owner, owner + 1)));
    }
  };

  static constexpr bcast_plan plan(const bcast_shape& s) { return {s}; }
  static constexpr reduce_plan plan(const reduce_shape& s) { return {s}; }
  // Gather, gatherv, scatter and all-to-all serve every peer in one round.
  static constexpr auto plan(const gather_shape& s) { return flat::rooted(s, all(s.size)); }
  static constexpr auto plan(const gatherv_shape& s) { return flat::rooted(s, all(s.size)); }
  static constexpr auto plan(const scatter_shape& s) { return flat::rooted(s, all(s.size)); }
  static constexpr auto plan(const alltoall_shape& s) { return flat::exchange(s, all(s.size)); }
  static constexpr auto plan(const alltoallv_shape& s) { return flat::exchange(s, all(s.size)); }
  static constexpr allgather_plan plan(const allgather_phase& s) { return {s}; }
  static constexpr scatter_phase_plan plan(const scatter_phase& s) { return {s}; }
  static constexpr reduce_scatter_plan plan(const reduce_scatter_phase& s) { return {s}; }
  /// Allreduce as the linear reduce followed by the linear bcast (Open MPI's
  /// "basic linear" allreduce).
  static constexpr auto plan(const allreduce_shape& s) { return reduce_bcast<linear, linear>::plan(s); }
};

}  // namespace hpcoll::schedule
