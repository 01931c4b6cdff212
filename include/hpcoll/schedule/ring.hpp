// SPDX-License-Identifier: BSD-3-Clause
// Ring schedules: p − 1 rounds in which every rank sends to rank + 1 and
// receives from rank − 1, one block per round — bandwidth-optimal, latency
// linear in p.
#pragma once

#include <cstddef>

#include "../plan/ranks.hpp"
#include "../plan/plan.hpp"
#include "../plan/shape.hpp"
#include "compose.hpp"
#include "properties.hpp"

namespace hpcoll::schedule {

/// Ring allgather and reduce-scatter; the ring allreduce is the two in sequence.
struct ring {
  static constexpr const char* name = "ring";
  /// The cost model may walk a sample of ranks (select/cost.hpp): each round's busiest rank is among them.
  static constexpr bool sampled_cost = true;
  /// Its plans give the cost walk hints: every round costs the same.
  static constexpr bool cost_hints = true;

  /// Round k: send block v − k to the right, receive block v − k − 1 from the left.
  struct allgather_plan {
    /// Every rank sends to and receives from the same offsets (round_nodes_alike).
    static constexpr bool nodes_alike = true;
    allgather_phase s;
    constexpr int rounds() const { return s.size - 1; }
    constexpr std::size_t scratch_elems() const { return 0; }
    template <class Emit>
    constexpr void round(int k, Emit&& emit) const {
      // Every block is received by some rank in every round: the largest sets each round's cost.
      if constexpr (cost_hint_sink<Emit>) emit.repeat(1, rounds() - k);
      const int p = s.size;
      const int v = virtual_rank(s.rank, s.root, p);
      const int send_block = wrap_rank(v - k, p);
      const int recv_block = wrap_rank(v - k - 1, p);
      emit(step::recv(real_rank(wrap_rank(v - 1, p), s.root, p), s.layout.blocks(s.data, s.base, recv_block, recv_block + 1)));
      const region outgoing = k == 0 ? s.own_block(v) : s.layout.blocks(s.data, s.base, send_block, send_block + 1);
      emit(step::send(real_rank(wrap_rank(v + 1, p), s.root, p), outgoing));
    }
  };

  /// Round k: send the partial sum of block r − k − 1 to the right; receive the
  /// partial sum of block r − k − 2 from the left and add this rank's
  /// contribution. Each block meets the ranks in ring order starting after its
  /// owner, so the op must be commutative. No block is touched twice, so
  /// (unless source and acc are the same memory) contributions land directly in
  /// acc and no scratch is used.
  struct reduce_scatter_plan {
    /// Every rank sends to and receives from the same offsets (round_nodes_alike).
    static constexpr bool nodes_alike = true;
    static constexpr bool commutative_only = true;
    reduce_scatter_phase s;
    constexpr int rounds() const { return s.size > 1 ? s.size - 1 : 1; }
    constexpr std::size_t scratch_elems() const { return s.source_aliases_acc ? s.scratch_base + s.layout.count(0) : 0; }
    constexpr region source(int b) const { return s.layout.blocks(s.source, s.source_base, b, b + 1); }
    constexpr region acc(int b) const { return s.layout.blocks(s.acc, s.acc_base, b, b + 1); }
    template <class Emit>
    constexpr void round(int k, Emit&& emit) const {
      if constexpr (cost_hint_sink<Emit>) emit.repeat(1, rounds() - k);  // as in the allgather
      const int p = s.size;
      const int r = s.rank;
      if (p == 1) {
        emit(step::copy(source(0), acc(0)));
        return;
      }
      const int send_block = wrap_rank(r - k - 1, p);
      const int recv_block = wrap_rank(r - k - 2, p);
      const region target = acc(recv_block);
      const region land = s.source_aliases_acc ? tmp(s.scratch_base, target.count) : target;
      emit(step::recv_reduce(wrap_rank(r - 1, p), land, source(recv_block), target, true));
      emit(step::send(wrap_rank(r + 1, p), k == 0 ? source(send_block) : acc(send_block)));
    }
  };

  static constexpr allgather_plan plan(const allgather_phase& s) { return {s}; }
  static constexpr reduce_scatter_plan plan(const reduce_scatter_phase& s) { return {s}; }
  static constexpr auto plan(const allreduce_shape& s) { return reduce_scatter_allgather<ring, ring>::plan(s); }
};

}  // namespace hpcoll::schedule
