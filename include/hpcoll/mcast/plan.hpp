// SPDX-License-Identifier: BSD-3-Clause
// A multicast as a plan: the binomial and linear schedules are broadcasts over
// the master and the members rooted at the master; any other broadcast
// schedule runs among the members, on their logical numbers, after the
// master's hop to the lowest member. Here too the multicast's shape and what
// the dispatcher knows of it.
#pragma once

#include <boost/hana/tuple.hpp>
#include <concepts>
#include <cstddef>

#include "../plan/plan.hpp"
#include "../plan/plan_for.hpp"
#include "../plan/shape.hpp"
#include "../schedule/all.hpp"
#include "../select/cost.hpp"
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

/// The binomial and linear multicasts: `Inner`, a broadcast plan over the
/// r + 1 logical numbers of the header tree (mcast/wire.hpp: the master is 0,
/// member k is k + 1) rooted at the master, whose peers are translated to
/// ranks here. The multicast is as deep as a broadcast on a communicator of
/// {master} ∪ members, without an extra hop through the lowest member
/// (binomial: the data follows the header hop by hop; linear: the master
/// sends it to every member). The master sends from its input.
/// Every rank sends to all its children at once, in the round after its
/// receive (the master: the first round): the master's request advances only
/// when its owner tests it, so a send a round would hold its subtrees up until
/// then (and two masters each blocked in a receive of the other's multicast
/// would wait for ever), and on shared cores the children of a member copy in
/// parallel (docs/mcast.md, measured).
template <plan Inner>
class mcast_tree_plan {
public:
  /// `inner` is the broadcast plan of this rank's logical number (of logical
  /// number 0 on ranks that take no part: they only borrow its round count).
  constexpr mcast_tree_plan(const mcast_shape& s, Inner inner)
      : s_(s), takes_part_(s.rank == s.master || s.members->contains(s.rank)), inner_(inner) {
    for (int i = 0; i < inner_.rounds() && received_ < 0; ++i)
      inner_.round(i, [&](const step& st) {
        if (st.kind == step_kind::recv) received_ = i;
      });
  }

  constexpr int rounds() const { return inner_.rounds(); }
  constexpr std::size_t scratch_elems() const { return takes_part_ ? inner_.scratch_elems() : 0; }

  template <class Emit>
  constexpr void round(int r, Emit&& emit) const {
    if (!takes_part_) return;
    const auto translated = [&](step st) {
      if (st.is_comm()) st.peer = st.peer == 0 ? s_.master : s_.members->member(st.peer - 1);
      if (s_.rank == s_.master && st.kind == step_kind::send && st.a.buf == buffer::output) st.a.buf = buffer::input;
      emit(st);
    };
    if (r == received_) {
      inner_.round(r, translated);
    } else if (r == received_ + 1) {
      for (int i = r; i < inner_.rounds(); ++i) inner_.round(i, translated);
    }
  }

private:
  mcast_shape s_;
  bool takes_part_;
  Inner inner_;
  int received_ = -1;  ///< the round of this rank's receive; -1 at the master
};

/// Whether a multicast schedule is the broadcast over the master and the
/// members rooted at the master (the header tree's logical numbers), rather
/// than one among the members after the master's hop to the lowest.
template <class S>
inline constexpr bool mcast_rooted_at_master = std::same_as<S, schedule::binomial> || std::same_as<S, schedule::linear>;

/// The broadcast over the header tree's logical numbers that the binomial and
/// linear multicasts run on this rank.
inline bcast_shape header_tree_bcast(const mcast_shape& s) {
  const int position = s.members->contains(s.rank) ? s.members->position(s.rank) + 1 : 0;
  return {position, s.members->count() + 1, 0, s.count, s.elem_size};
}

/// The broadcast among the members that a multicast runs on this rank.
inline bcast_shape member_bcast(const mcast_shape& s) {
  const int position = s.members->contains(s.rank) ? s.members->position(s.rank) : 0;
  return {position, s.members->count(), 0, s.count, s.elem_size};
}

/// Every broadcast schedule serves the multicast; binomial and linear rooted at the master.
template <>
struct plan_adapter<mcast_shape> {
  template <class S>
    requires has_plan<S, bcast_shape>
  static constexpr auto plan(const mcast_shape& s) {
    if constexpr (mcast_rooted_at_master<S>)
      return mcast_tree_plan(s, S::plan(header_tree_bcast(s)));
    else
      return mcast_plan(s, S::plan(member_bcast(s)));
  }
};

/// The multicast schedules: every member learns the schedule from the
/// message's header, by its position here, so only these can run
/// (hpcoll::Mcast refuses others). Each is priced as the broadcast its plan
/// runs: over the master and the r members (binomial, linear) or among the
/// members, plus the master's hop to the lowest member (the others). Linear
/// and the others cost what the walk of their multicast plan costs on ranks
/// with a core each; binomial's broadcast tree sends to one child a round,
/// the multicast to all at once (tests/cost_test.cpp). The members' count is
/// part of its decision.
template <>
struct collective_traits<mcast_shape> {
  static constexpr auto candidates = boost::hana::tuple_t<schedule::binomial, schedule::scatter_ring_allgather,
                                                          schedule::scatter_recursive_doubling_allgather,
                                                          schedule::linear>;
  static constexpr message_size size = message_size::vector;
  template <class S>
  static bcast_shape priced(const mcast_shape& s) {
    const int r = s.members->count();
    return {0, mcast_rooted_at_master<S> ? r + 1 : r, 0, s.count, s.elem_size};
  }
  template <class S>
  static double lead_in_seconds(const mcast_shape& s, const machine& m) {
    if constexpr (mcast_rooted_at_master<S>)
      return 0;
    else
      return predict_sampled<schedule::linear>(bcast_shape{0, 2, 0, s.count, s.elem_size}, m).seconds;
  }
  static int group(const mcast_shape& s) { return s.members->count(); }
  static constexpr bool mailboxes = false;  // its messages go through the channel's communicator
};

}  // namespace hpcoll
