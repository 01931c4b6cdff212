// SPDX-License-Identifier: BSD-3-Clause
// A plan chosen at run time among several plan types.
#pragma once

#include <cstddef>
#include <utility>
#include <variant>

#include "plan.hpp"

namespace hpcoll {

/// Holds one of several plans and forwards to it. The choice is made per call
/// (by schedule::automatic), so the plan type alone cannot say whether the op
/// must be commutative: the chooser only picks alternatives that accept the
/// call's op.
template <plan... Plans>
class variant_plan {
public:
  /// Holds the I-th alternative (alternatives may repeat a plan type).
  template <std::size_t I, class P>
  constexpr variant_plan(std::in_place_index_t<I> which, P p) : plan_(which, std::move(p)) {}

  constexpr int rounds() const {
    return std::visit([](const auto& p) { return p.rounds(); }, plan_);
  }
  constexpr std::size_t scratch_elems() const {
    return std::visit([](const auto& p) { return static_cast<std::size_t>(p.scratch_elems()); }, plan_);
  }
  template <class Emit>
  constexpr void round(int r, Emit&& emit) const {
    std::visit([&](const auto& p) { p.round(r, emit); }, plan_);
  }
  constexpr bool nodes_alike_in(int r) const {
    return std::visit([r](const auto& p) { return round_nodes_alike(p, r); }, plan_);
  }
  constexpr std::size_t index() const { return plan_.index(); }

private:
  std::variant<Plans...> plan_;
};

}  // namespace hpcoll
