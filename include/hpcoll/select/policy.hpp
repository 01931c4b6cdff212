// SPDX-License-Identifier: BSD-3-Clause
// How a collective turns its Schedule template argument into the plan of a
// call: the schedule policy chooses (once per call), then builds the plan
// (once per run, or once for a persistent request).
//
//   schedule_policy<S>::check<Shape, Commutative>();              compile-time checks
//   auto choice = schedule_policy<S>::choose<Op, T, Blocking>(c, shape);
//                                                                  which schedule runs (may throw); Blocking:
//                                                                  the call runs now, and its small messages
//                                                                  may take the node's mailboxes
//   choice.schedule(), choice.dispatched                           its name, how it was chosen
//   choice.plan(shape)                                             the plan of this rank
//   choice.alternative()                                           which of the policy's plans that is
//                                                                  (a key of recorded plans, exec/recorded_plan.hpp)
//
// A schedule named at compile time chooses itself (the primary template,
// here: nothing of the dispatcher is compiled). schedule::automatic chooses
// at run time; its specialisation lives with it in select/automatic.hpp,
// which the free functions' headers include.
#pragma once

#include <cstddef>
#include <string>

#include "../communicator.hpp"
#include "../plan/plan_for.hpp"
#include "../schedule/properties.hpp"

namespace hpcoll {

namespace schedule {
/// The schedule of the free functions: the dispatcher chooses one of the
/// collective's candidates per call. Defined in <hpcoll/select/automatic.hpp>
/// (included by <hpcoll/hpcoll.hpp>).
struct automatic;
}  // namespace schedule

/// The schedule policy of S; see the top of this file.
template <class S>
struct schedule_policy {
  template <class Shape, bool Commutative>
  static constexpr void check() {
    static_assert(serves<S, Shape>,
                  "hpcoll: the schedule does not serve this collective (see the schedule table in README.md)");
    if constexpr (serves<S, Shape>)
      static_assert(Commutative || !requires_commutative<S, Shape>,
                    "hpcoll: the schedule requires a commutative op for this collective; choose an order-preserving "
                    "schedule (linear, binomial, recursive_doubling) for a non-commutative op");
  }

  struct choice {
    static constexpr bool dispatched = false;
    [[gnu::always_inline]] static const std::string& schedule() { return detail::schedule_name_of<S>(); }
    static constexpr std::size_t alternative() { return 0; }
    template <class Shape>
    static constexpr auto plan(const Shape& s) {
      return plan_for<S>(s);
    }
  };

  template <class Op, class T, bool Blocking, class Shape>
  static choice choose(const communicator&, const Shape&) {
    return {};
  }
};

/// Defined in <hpcoll/select/automatic.hpp>: using the default schedule needs it.
template <>
struct schedule_policy<schedule::automatic>;

}  // namespace hpcoll
