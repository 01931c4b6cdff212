// SPDX-License-Identifier: BSD-3-Clause
// schedule::automatic — the schedule of the free functions: per call the
// dispatcher (select/dispatch.hpp) chooses one of the collective's
// candidates, and the plan is built from the chosen one.
#pragma once

#include <cstddef>
#include <string>

#include "../communicator.hpp"
#include "dispatch.hpp"
#include "policy.hpp"
#include "traits.hpp"

namespace hpcoll {

namespace schedule {

struct automatic {
  static constexpr const char* name = "automatic";
  /// Some candidates are node-aware, and the dispatcher weighs them by the
  /// layout: the entry points give every call the communicator's node layout.
  static constexpr bool node_aware = true;

  /// The plan the dispatcher chooses from the current machine file, tuning
  /// table and environment, without a communicator's memory of decisions,
  /// with the machine's default γ, a core per rank and every message through
  /// MPI: lets the verifier, the cost model and the
  /// simulator take schedule::automatic like any schedule.
  template <dispatchable Shape>
  static auto plan(const Shape& s) {
    return candidate_plan(s, hpcoll::detail::decide_now<Shape, void, void>(s, 1, 0).choice);
  }
};

}  // namespace schedule

/// schedule::automatic as a policy: chooses per call through the dispatcher
/// (remembered per communicator and call class, blocking and nonblocking
/// calls apart), builds the chosen candidate's plan.
template <>
struct schedule_policy<schedule::automatic> {
  template <class Shape, bool Commutative>
  static constexpr void check() {
    static_assert(dispatchable<Shape>,
                  "hpcoll: schedule::automatic has no candidate schedules for this collective (select/traits.hpp)");
  }

  /// Candidates that need a commutative op are left out of the choice for a
  /// non-commutative one at run time: nothing to check on the op here.
  template <class Shape>
  struct choice {
    std::size_t index = 0;
    const std::string* name = nullptr;
    static constexpr bool dispatched = true;
    const std::string& schedule() const { return *name; }
    std::size_t alternative() const { return index; }
    auto plan(const Shape& s) const { return schedule::candidate_plan(s, index); }
  };

  template <class Op, class T, bool Blocking, class Shape>
  [[gnu::always_inline]] static choice<Shape> choose(const communicator& c, const Shape& s) {
    const std::size_t index = detail::dispatch<Shape, Op, T, Blocking>(c, s);
    return {index, &schedule::candidate_names<Shape>()[index]};
  }
};

}  // namespace hpcoll
