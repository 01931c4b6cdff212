// A multicast as a plan: the master's hop to the lowest member, then any
// broadcast schedule run among the members, on their logical numbers.
#pragma once

#include <cstddef>

#include "../plan.hpp"
#include "../shape.hpp"

namespace hpcoll::detail {

/// Round 0: the master sends its input to the lowest member (logical number
/// 0). Rounds 1..: the members run `Inner`, a broadcast plan rooted at logical
/// number 0 over the r members, whose peers are logical numbers translated to
/// ranks here. Every rank has 1 + Inner's rounds (idle ranks emit nothing), as
/// the round semantics of plan.hpp require.
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

}  // namespace hpcoll::detail
