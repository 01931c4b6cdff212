// SPDX-License-Identifier: BSD-3-Clause
// Pairwise exchange: p − 1 rounds, one partner per round — exclusive-or
// partners when p is a power of two (each round a perfect matching), shifted
// partners (send to rank + d, receive from rank − d) otherwise.
#pragma once

#include "flat.hpp"
#include "../plan/shape.hpp"

namespace hpcoll::schedule {

struct pairwise {
  static constexpr const char* name = "pairwise";
  /// The cost model may walk a sample of ranks (select/cost.hpp): each round's busiest rank is among them.
  static constexpr bool sampled_cost = true;
  /// Its plans give the cost walk hints: the rounds after the first cost the same (flat.hpp).
  static constexpr bool cost_hints = true;
  static constexpr auto plan(const alltoall_shape& s) { return flat::exchange(s, 1, flat::best_pairing(s.size)); }
  static constexpr auto plan(const alltoallv_shape& s) { return flat::exchange(s, 1, flat::best_pairing(s.size)); }
};

}  // namespace hpcoll::schedule
