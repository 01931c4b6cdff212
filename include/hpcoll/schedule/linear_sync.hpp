// SPDX-License-Identifier: BSD-3-Clause
// Linear schedules with a bounded number of messages in flight ("linear with
// sync"): the same single hops as `linear`, spread over rounds of at most
// `Window` peers, so a root or an all-to-all never floods the network with
// p − 1 simultaneous transfers.
#pragma once

#include <string>

#include "flat.hpp"
#include "../plan/shape.hpp"

namespace hpcoll::schedule {

/// Linear schedules with at most `Window` peers per round.
template <int Window = 8>
struct linear_sync {
  static_assert(Window >= 1, "hpcoll: linear_sync<Window> needs Window >= 1");
  static std::string name() { return "linear_sync<" + std::to_string(Window) + ">"; }
  static constexpr int window = Window;
  /// The cost model may walk a sample of ranks (select/cost.hpp): a root, or any rank of an
  /// all-to-all, is the busiest of every round.
  static constexpr bool sampled_cost = true;
  /// Its plans give the cost walk hints: the full windows after the first cost the same (flat.hpp).
  static constexpr bool cost_hints = true;

  static constexpr auto plan(const gather_shape& s) { return flat::rooted(s, Window); }
  static constexpr auto plan(const gatherv_shape& s) { return flat::rooted(s, Window); }
  static constexpr auto plan(const scatter_shape& s) { return flat::rooted(s, Window); }
  static constexpr auto plan(const alltoall_shape& s) { return flat::exchange(s, Window); }
  /// The plan refers to the counts and displacements of `s`, which must
  /// outlive it (the collective keeps them for the duration of the call).
  static constexpr auto plan(const alltoallv_shape& s) { return flat::exchange(s, Window); }
};

}  // namespace hpcoll::schedule
