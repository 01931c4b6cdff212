// Pairwise exchange: p − 1 rounds, one partner per round — exclusive-or
// partners when p is a power of two (each round a perfect matching), shifted
// partners (send to rank + d, receive from rank − d) otherwise.
#pragma once

#include "../detail/flat.hpp"
#include "../shape.hpp"

namespace hpcoll::schedule {

struct pairwise {
  static constexpr const char* name = "pairwise";
  /// The cost model may walk a sample of ranks (cost.hpp): each round's busiest rank is among them.
  static constexpr bool sampled_cost = true;
  static constexpr auto plan(const alltoall_shape& s) { return detail::exchange(s, 1, detail::best_pairing(s.size)); }
  static constexpr auto plan(const alltoallv_shape& s) { return detail::exchange(s, 1, detail::best_pairing(s.size)); }
};

}  // namespace hpcoll::schedule
