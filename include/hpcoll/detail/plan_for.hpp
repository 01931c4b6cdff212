// From a schedule and a collective shape to the plan every executor runs.
#pragma once

#include <concepts>
#include <cstddef>
#include <utility>

#include "../plan.hpp"
#include "../shape.hpp"
#include "mcast_plan.hpp"
#include "sequence.hpp"

namespace hpcoll {

namespace detail {

/// Whether schedule S declares that the cost model may walk a sample of ranks.
template <class S>
inline constexpr bool sampled_cost = [] {
  if constexpr (requires { S::sampled_cost; }) return static_cast<bool>(S::sampled_cost);
  else return false;
}();

template <class S, class Shape>
concept has_plan = requires(const Shape& s) {
  { S::plan(s) } -> plan;
};

/// Allgather from an allgather phase: place the own block, then run the phase.
template <class S>
constexpr auto allgather_from_phase(const allgather_shape& s) {
  const std::size_t n = s.count;
  const allgather_phase phase{.rank = s.rank, .size = s.size, .root = 0,
                              .layout = {n * static_cast<std::size_t>(s.size), s.size},
                              .data = buffer::output, .base = 0, .scratch_base = 0, .own = in(0, n)};
  return sequence(local_copy_plan(in(0, n), out(static_cast<std::size_t>(s.rank) * n, n)), S::plan(phase));
}

/// Reduce-scatter-block from a reduce-scatter phase: reduce into scratch,
/// then copy this rank's block out (the output holds a single block).
template <class S>
constexpr auto reduce_scatter_block_from_phase(const reduce_scatter_block_shape& s) {
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

/// Multicast from a broadcast schedule: the master's hop, then S's broadcast
/// among the members.
template <class S>
constexpr auto mcast_from_bcast(const mcast_shape& s) {
  return mcast_plan(s, S::plan(member_bcast(s)));
}

}  // namespace detail

/// Whether schedule S can serve the collective described by Shape, directly
/// or through one of its phases.
template <class S, class Shape>
concept serves = detail::has_plan<S, Shape> ||
                 (std::same_as<Shape, allgather_shape> && detail::has_plan<S, allgather_phase>) ||
                 (std::same_as<Shape, reduce_scatter_block_shape> && detail::has_plan<S, reduce_scatter_phase>) ||
                 (std::same_as<Shape, mcast_shape> && detail::has_plan<S, bcast_shape>);

/// The plan schedule S runs for one rank's part of a call. The MPI executor
/// and the verifier both obtain plans here, so what is verified is what runs.
template <class S, class Shape>
  requires serves<S, Shape>
constexpr auto plan_for(const Shape& s) {
  if constexpr (detail::has_plan<S, Shape>)
    return S::plan(s);
  else if constexpr (std::same_as<Shape, allgather_shape>)
    return detail::allgather_from_phase<S>(s);
  else if constexpr (std::same_as<Shape, mcast_shape>)
    return detail::mcast_from_bcast<S>(s);
  else
    return detail::reduce_scatter_block_from_phase<S>(s);
}

/// The plan type S runs for Shape.
template <class S, class Shape>
using plan_type = decltype(plan_for<S>(std::declval<const Shape&>()));

/// Whether S needs a commutative op for Shape.
template <class S, class Shape>
inline constexpr bool requires_commutative = detail::commutative_only<plan_type<S, Shape>>();

}  // namespace hpcoll
