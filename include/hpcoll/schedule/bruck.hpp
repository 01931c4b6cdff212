// SPDX-License-Identifier: BSD-3-Clause
// Bruck's schedules: ceil(lg p) rounds at distances 1, 2, 4, … for any p —
// latency-optimal for small messages, at the price of local rotations.
#pragma once

#include <algorithm>
#include <cstddef>

#include "../plan/ranks.hpp"
#include "../plan/plan.hpp"
#include "../plan/shape.hpp"
#include "properties.hpp"

namespace hpcoll::schedule {

struct bruck {
  static constexpr const char* name = "bruck";
  /// The cost model may walk a sample of ranks (select/cost.hpp): each round's busiest rank is among them.
  static constexpr bool sampled_cost = true;
  /// Its all-to-all plan gives the cost walk hints: its O(p) local copies a round, priced as one load.
  static constexpr bool cost_hints = true;

  /// Allgather phase. Scratch slot j holds block v + j; in round k a rank sends
  /// its first min(2^k, p − 2^k) slots to v − 2^k and receives as many after its
  /// first 2^k slots from v + 2^k. A last local round rotates the slots into
  /// place.
  struct allgather_plan {
    /// Every rank sends to and receives from the same offsets (round_nodes_alike).
    static constexpr bool nodes_alike = true;
    allgather_phase s;
    int v = virtual_rank(s.rank, s.root, s.size);
    int levels = ceil_log2(s.size);
    constexpr int rounds() const { return s.size == 1 ? 0 : levels + 1; }
    constexpr std::size_t scratch_elems() const { return s.size == 1 ? 0 : s.scratch_base + s.layout.total; }
    /// Elements before slot j (blocks v, v+1, … cyclically).
    constexpr std::size_t slot_offset(int j) const {
      const int p = s.size;
      if (v + j <= p) return s.layout.count(v, v + j);
      return s.layout.count(v, p) + s.layout.count(0, v + j - p);
    }
    constexpr region slots(int first, int last) const {
      return tmp(s.scratch_base + slot_offset(first), slot_offset(last) - slot_offset(first));
    }
    template <class Emit>
    constexpr void round(int k, Emit&& emit) const {
      const int p = s.size;
      if (k == levels) {  // rotate slot j back to block v + j
        emit(step::copy(slots(1, p - v), s.layout.blocks(s.data, s.base, v + 1, p)));
        emit(step::copy(slots(p - v, p), s.layout.blocks(s.data, s.base, 0, v)));
        return;
      }
      if (k == 0) emit(step::copy(s.layout.blocks(s.data, s.base, v, v + 1), slots(0, 1)));
      const int d = 1 << k;
      const int c = std::min(d, p - d);
      emit(step::recv(real_rank((v + d) % p, s.root, p), slots(d, d + c)));
      emit(step::send(real_rank((v - d + p) % p, s.root, p), k == 0 ? s.own_block(v) : slots(0, c)));
    }
  };

  /// The "modified Bruck" all-to-all: rotate the input so slot j holds the
  /// block for rank + j; in round k send every slot whose index has bit k set to
  /// rank + 2^k (packed into one message); after the last round slot j holds
  /// the block from rank − j. Works in place (the input is read before the
  /// output is written).
  struct alltoall_plan {
    /// Every rank sends to and receives from the same offsets (round_nodes_alike).
    static constexpr bool nodes_alike = true;
    alltoall_shape s;
    int levels = ceil_log2(s.size);
    /// Number of slots in [0, p) with bit `d` set.
    constexpr std::size_t slots_with(int d) const {
      const int p = s.size;
      return static_cast<std::size_t>((p / (2 * d)) * d + std::max(0, p % (2 * d) - d));
    }
    constexpr std::size_t widest() const {
      std::size_t w = 0;
      for (int k = 0; k < levels; ++k) w = std::max(w, slots_with(1 << k));
      return w * s.count;
    }
    constexpr std::size_t all() const { return static_cast<std::size_t>(s.size) * s.count; }
    constexpr int rounds() const { return levels + 1; }
    constexpr std::size_t scratch_elems() const { return s.size == 1 ? 0 : all() + 3 * widest(); }

    constexpr region slot(int j, int runs = 1) const {
      return tmp(static_cast<std::size_t>(j) * s.count, static_cast<std::size_t>(runs) * s.count);
    }
    constexpr region packed() const { return tmp(all(), widest()); }
    constexpr region arrived(int k) const { return tmp(all() + static_cast<std::size_t>(1 + k % 2) * widest(), widest()); }
    /// Copies every run of slots with bit d set to (to_packed) or from the
    /// packed buffer `pack`.
    template <class Emit>
    constexpr void shuffle(int d, region pack, bool to_packed, Emit& emit) const {
      if constexpr (cost_hint_sink<Emit>) {
        emit.load(round_load::copying(slots_with(d) * s.count));
        return;
      }
      std::size_t at = 0;
      for (int first = d; first < s.size; first += 2 * d) {
        const int run = std::min(d, s.size - first);
        const region slots = slot(first, run);
        const region packed_part = pack.sub(at, slots.count);
        emit(to_packed ? step::copy(slots, packed_part) : step::copy(packed_part, slots));
        at += slots.count;
      }
    }
    template <class Emit>
    constexpr void round(int k, Emit&& emit) const {
      const int p = s.size;
      const int r = s.rank;
      const std::size_t n = s.count;
      if (p == 1) {
        emit(step::copy(in(0, n), out(0, n)));
        return;
      }
      if (k == 0) {  // slot j = input block r + j
        emit(step::copy(in(static_cast<std::size_t>(r) * n, static_cast<std::size_t>(p - r) * n), slot(0, p - r)));
        emit(step::copy(in(0, static_cast<std::size_t>(r) * n), slot(p - r, r)));
      } else {
        shuffle(1 << (k - 1), arrived(k - 1), false, emit);
      }
      if (k == levels) {  // output block r − j = slot j
        if constexpr (cost_hint_sink<Emit>) {
          emit.load(round_load::copying(all()));
          return;
        }
        for (int j = 0; j < p; ++j)
          emit(step::copy(slot(j), out(static_cast<std::size_t>((r - j + p) % p) * n, n)));
        return;
      }
      const int d = 1 << k;
      const std::size_t elems = slots_with(d) * n;
      shuffle(d, packed(), true, emit);
      emit(step::recv((r - d + p) % p, arrived(k).sub(0, elems)));
      emit(step::send((r + d) % p, packed().sub(0, elems)));
    }
  };

  static constexpr allgather_plan plan(const allgather_phase& s) { return {s}; }
  static constexpr alltoall_plan plan(const alltoall_shape& s) { return {s}; }
};

}  // namespace hpcoll::schedule
