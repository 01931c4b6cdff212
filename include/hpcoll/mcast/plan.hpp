// SPDX-License-Identifier: BSD-3-Clause
// A multicast as a plan: the master's hop to the lowest member, then any
// broadcast schedule run among the members, on their logical numbers. Here
// too the multicast's shape and what the dispatcher knows of it.
#pragma once

#include <boost/hana/tuple.hpp>
#include <cstddef>

#include "../plan/plan.hpp"
#include "../plan/plan_for.hpp"
#include "../plan/shape.hpp"
#include "../schedule/all.hpp"
#include "../select/traits.hpp"
#include "rank_set.hpp"

namespace hpcoll {

/// A multicast from `master` to the ranks of `members` (a set of `size` ranks
/// that does not hold the master). input: count at the master; output: count
/// at every member. Non-members other than the master take no part.
struct mcast_shape {
  static constexpr std::string_view name = "mcast";
  int rank, size, master;
  const rank_set* members;  ///< the same set on every rank; outlives the shape
  std::size_t count;
  std::size_t elem_size = 1;  ///< bytes per element
};

/// Round 0: the master sends its input to the lowest member (logical number
/// 0). Rounds 1..: the members run `Inner`, a broadcast plan rooted at logical
/// number 0 over the r members, whose peers are logical numbers translated to
/// ranks here. Every rank has 1 + Inner's rounds (idle ranks emit nothing), as
/// the round semantics of plan/plan.hpp require.
template <plan Inner>
class mcast_plan {
public:
  /// `inner` is the broadcast plan of this rank's logical number (of logical
  /// number 0 on ranks that are not members: they only borrow its round count).
  constexpr mcast_plan(const mcast_shape& s, Inner inner)
      : s_(s), member_(s.members->contains(s.rank)), inner_(inner) {}

  constexpr int rounds() const { return 1 + inner_.rounds(); }
  constexpr std::size_t scratch_elems() const { return member_ ? inner_.scratch_elems() : 0; }

  template <class Emit>
  constexpr void round(int r, Emit&& emit) const {
    if (r == 0) {
      const int lowest = s_.members->lowest();
      if (s_.rank == s_.master) emit(step::send(lowest, in(0, s_.count)));
      if (s_.rank == lowest) emit(step::recv(s_.master, out(0, s_.count)));
      return;
    }
    if (!member_) return;
    inner_.round(r - 1, [&](step st) {
      if (st.is_comm()) st.peer = s_.members->member(st.peer);
      emit(st);
    });
  }

private:
  mcast_shape s_;
  bool member_;
  Inner inner_;
};

/// The broadcast among the members that a multicast runs on this rank.
inline bcast_shape member_bcast(const mcast_shape& s) {
  const int position = s.members->contains(s.rank) ? s.members->position(s.rank) : 0;
  return {position, s.members->count(), 0, s.count, s.elem_size};
}

/// Every broadcast schedule serves the multicast.
template <>
struct plan_adapter<mcast_shape> {
  template <class S>
    requires has_plan<S, bcast_shape>
  static constexpr auto plan(const mcast_shape& s) {
    return mcast_plan(s, S::plan(member_bcast(s)));
  }
};

/// The multicast schedules: every member learns the schedule from the
/// message's header, by its position here, so only these can run
/// (hpcoll::Mcast refuses others). A multicast costs the master's hop, the
/// same for every candidate, plus a broadcast among the r members, so it is
/// priced as that broadcast, and the members' count is part of its decision.
template <>
struct collective_traits<mcast_shape> {
  static constexpr auto candidates = boost::hana::tuple_t<schedule::binomial, schedule::scatter_ring_allgather,
                                                          schedule::scatter_recursive_doubling_allgather>;
  static constexpr message_size size = message_size::vector;
  static bcast_shape priced(const mcast_shape& s) { return {0, s.members->count(), 0, s.count, s.elem_size}; }
  static int group(const mcast_shape& s) { return s.members->count(); }
};

}  // namespace hpcoll
