// SPDX-License-Identifier: BSD-3-Clause
// From a schedule and a collective shape to the plan every executor runs.
#pragma once

#include <cstddef>
#include <utility>

#include "plan.hpp"
#include "sequence.hpp"
#include "shape.hpp"

namespace hpcoll {

/// Whether schedule S builds plans for Shape itself (`S::plan(shape)`).
template <class S, class Shape>
concept has_plan = requires(const Shape& s) {
  { S::plan(s) } -> plan;
};

/// Customisation point: how the plan of a collective is made from a
/// schedule's plan for another shape when the schedule has none for the
/// collective itself. A specialisation has a static member function template
/// `plan<S>(shape)`, constrained on what it needs of S. The multicast
/// (mcast/plan.hpp) is served this way by the broadcast schedules.
template <class Shape>
struct plan_adapter {};

/// Allgather from an allgather phase: place the own block, then run the phase.
template <>
struct plan_adapter<allgather_shape> {
  template <class S>
    requires has_plan<S, allgather_phase>
  static constexpr auto plan(const allgather_shape& s) {
    const std::size_t n = s.count;
    const allgather_phase phase{.rank = s.rank, .size = s.size, .root = 0,
                                .layout = {n * static_cast<std::size_t>(s.size), s.size},
                                .data = buffer::output, .base = 0, .scratch_base = 0, .own = in(0, n)};
    return sequence(local_copy_plan(in(0, n), out(static_cast<std::size_t>(s.rank) * n, n)), S::plan(phase));
  }
};

/// The last round of an allgatherv gathered in scratch: every block copied
/// from the packed layout to where this rank's displacements put it (no
/// copies when `active` is false: the blocks were gathered in place).
class unpack_blocks_plan {
public:
  constexpr unpack_blocks_plan(const allgatherv_shape& s, bool active) : s_(s), active_(active) {}
  constexpr int rounds() const { return 1; }
  constexpr std::size_t scratch_elems() const { return active_ ? s_.total() : 0; }
  template <class Emit>
  constexpr void round(int, Emit&& emit) const {
    if (!active_) return;
    for (std::size_t q = 0; q < s_.counts.size(); ++q)
      if (s_.counts[q] > 0) emit(step::copy(tmp(s_.starts[q], s_.counts[q]), out(s_.displs[q], s_.counts[q])));
  }

private:
  allgatherv_shape s_;
  bool active_;
};

/// Allgatherv from an allgather phase over blocks of any sizes: in the
/// output when its blocks are packed in rank order, else packed in scratch
/// and copied out at the end. Every rank has the same rounds either way
/// (displacements are each rank's own).
template <>
struct plan_adapter<allgatherv_shape> {
  template <class S>
    requires has_plan<S, allgather_phase>
  static constexpr auto plan(const allgatherv_shape& s) {
    const auto r = static_cast<std::size_t>(s.rank);
    const std::size_t n = s.counts[r];
    const std::size_t total = s.total();
    const bool packed = s.packed;
    const region own_out = out(n ? s.displs[r] : 0, n);  // an empty block's displacement means nothing
    const allgather_phase phase{.rank = s.rank, .size = s.size, .root = 0, .layout = {total, s.size, s.starts},
                                .data = packed ? buffer::output : buffer::scratch, .base = 0,
                                .scratch_base = packed ? 0 : total, .own = s.in_place ? region{} : in(0, n)};
    return sequence(local_copy_plan(s.in_place ? own_out : in(0, n), packed ? own_out : tmp(s.starts[r], n)),
                    S::plan(phase), unpack_blocks_plan(s, !packed));
  }
};

/// Reduce-scatter-block from a reduce-scatter phase: reduce into scratch,
/// then copy this rank's block out (the output holds a single block).
template <>
struct plan_adapter<reduce_scatter_block_shape> {
  template <class S>
    requires has_plan<S, reduce_scatter_phase>
  static constexpr auto plan(const reduce_scatter_block_shape& s) {
    const std::size_t n = s.count;
    const std::size_t all = n * static_cast<std::size_t>(s.size);
    const reduce_scatter_phase phase{.rank = s.rank,
                                     .size = s.size,
                                     .layout = {all, s.size},
                                     .source = s.in_place ? buffer::output : buffer::input,
                                     .source_base = 0,
                                     .acc = buffer::scratch,
                                     .acc_base = 0,
                                     .scratch_base = all,
                                     .commutative = s.commutative,
                                     .source_aliases_acc = false,
                                     .elem_size = s.elem_size};
    return sequence(reserve_scratch_plan(all), S::plan(phase),
                    local_copy_plan(tmp(static_cast<std::size_t>(s.rank) * n, n), out(0, n)));
  }
};

/// Whether schedule S serves the collective Shape describes, directly or
/// through its plan_adapter.
template <class S, class Shape>
concept serves = has_plan<S, Shape> || requires(const Shape& s) {
  { plan_adapter<Shape>::template plan<S>(s) } -> plan;
};

/// The plan schedule S runs for one rank's part of a call. The MPI executor,
/// the cost model and the verifier all obtain plans here, so what is verified
/// and priced is what runs.
template <class S, class Shape>
  requires serves<S, Shape>
constexpr auto plan_for(const Shape& s) {
  if constexpr (has_plan<S, Shape>)
    return S::plan(s);
  else
    return plan_adapter<Shape>::template plan<S>(s);
}

/// The plan type S runs for Shape.
template <class S, class Shape>
using plan_type = decltype(plan_for<S>(std::declval<const Shape&>()));

/// Whether S needs a commutative op for Shape.
template <class S, class Shape>
inline constexpr bool requires_commutative = plan_requires_commutative<plan_type<S, Shape>>;

}  // namespace hpcoll
