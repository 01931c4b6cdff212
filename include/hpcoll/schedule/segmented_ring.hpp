// SPDX-License-Identifier: BSD-3-Clause
// The segmented (pipelined) ring: the ring reduce-scatter with every block cut
// into segments of SegmentBytes. A segment's reduction is deferred to the next
// round, where it runs while the following segment is arriving, so the γ
// (reduction) cost hides behind the β (transfer) cost — Open MPI's
// ring_segmented allreduce.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "../plan/plan.hpp"
#include "../plan/ranks.hpp"
#include "../plan/shape.hpp"
#include "compose.hpp"
#include "properties.hpp"
#include "ring.hpp"

namespace hpcoll::schedule {

/// Pipelined ring with segments of SegmentBytes (default 64 KiB). Serves
/// reduce-scatter and, followed by the ring allgather, allreduce.
template <std::size_t SegmentBytes = std::size_t{1} << 16>
struct segmented_ring {
  static_assert(SegmentBytes > 0, "hpcoll: segmented_ring<SegmentBytes> needs SegmentBytes > 0");
  static std::string name() { return "segmented_ring<" + std::to_string(SegmentBytes) + ">"; }
  /// The cost model may walk a sample of ranks (select/cost.hpp): each round's busiest rank is among them.
  static constexpr bool sampled_cost = true;
  /// Its plans give the cost walk hints: the rounds repeat with the period of a block's segments.
  static constexpr bool cost_hints = true;
  static constexpr std::size_t segment_bytes = SegmentBytes;

  struct reduce_scatter_plan {
    /// Every rank sends to and receives from the same offsets (round_nodes_alike).
    static constexpr bool nodes_alike = true;
    static constexpr bool commutative_only = true;
    reduce_scatter_phase s;
    std::size_t segment;  ///< elements per segment
    int segments;         ///< segments of the largest block

    constexpr reduce_scatter_plan(const reduce_scatter_phase& shape, std::size_t segment_bytes)
        : s(shape), segment(std::max<std::size_t>(1, segment_bytes / std::max<std::size_t>(1, shape.elem_size))) {
      const std::size_t largest = s.layout.count(0);
      segments = std::max<int>(1, static_cast<int>((largest + segment - 1) / segment));
    }

    constexpr int steps() const { return (s.size - 1) * segments; }
    constexpr int rounds() const { return s.size > 1 ? steps() + 1 : 1; }
    constexpr std::size_t scratch_elems() const { return s.source_aliases_acc ? s.scratch_base + 2 * segment : 0; }

    /// Segment `seg` of block b in buffer `buf`.
    constexpr region piece(buffer buf, std::size_t base, int b, int seg) const {
      const std::size_t first = static_cast<std::size_t>(seg) * segment;
      const std::size_t count = s.layout.count(b);
      const std::size_t n = first >= count ? 0 : std::min(segment, count - first);
      return {buf, base + s.layout.offset(b) + std::min(first, count), n};
    }
    constexpr int recv_block(int k) const { return wrap_rank(s.rank - k - 2, s.size); }
    constexpr int send_block(int k) const { return wrap_rank(s.rank - k - 1, s.size); }
    /// Where step t's incoming segment lands: in place in acc, or in one of two
    /// alternating scratch slots when acc is the source's memory.
    constexpr region landing(int t) const {
      const region target = piece(s.acc, s.acc_base, recv_block(t / segments), t % segments);
      if (!s.source_aliases_acc) return target;
      return tmp(s.scratch_base + static_cast<std::size_t>(t % 2) * segment, target.count);
    }

    template <class Emit>
    constexpr void round(int t, Emit&& emit) const {
      if (s.size == 1) {
        emit(step::copy(s.layout.blocks(s.source, s.source_base, 0, 1), s.layout.blocks(s.acc, s.acc_base, 0, 1)));
        return;
      }
      // Round t + segments does on rank r what round t did on rank r − 1 (from round 1
      // on, where the previous step's reduction runs): the same loads, one rank on.
      if constexpr (cost_hint_sink<Emit>)
        if (t >= 1 && t < steps()) emit.repeat(segments, (steps() - t) / segments);
      const int p = s.size;
      const int r = s.rank;
      if (t < steps()) emit(step::recv(wrap_rank(r - 1, p), landing(t)));
      if (t > 0) {  // finish the previous step's segment while this one arrives
        const int k = (t - 1) / segments;
        const int seg = (t - 1) % segments;
        const int b = recv_block(k);
        emit(step::reduce(landing(t - 1), piece(s.source, s.source_base, b, seg), piece(s.acc, s.acc_base, b, seg)));
      }
      if (t < steps()) {
        const int k = t / segments;
        const buffer from = k == 0 ? s.source : s.acc;
        const std::size_t base = k == 0 ? s.source_base : s.acc_base;
        emit(step::send(wrap_rank(r + 1, p), piece(from, base, send_block(k), t % segments)));
      }
    }
  };

  static constexpr reduce_scatter_plan plan(const reduce_scatter_phase& s) { return {s, SegmentBytes}; }
  static constexpr auto plan(const allreduce_shape& s) { return reduce_scatter_allgather<segmented_ring, ring>::plan(s); }
};

}  // namespace hpcoll::schedule
