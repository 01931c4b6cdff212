// SPDX-License-Identifier: BSD-3-Clause
// schedule::automatic — the schedule of the free functions: per call the
// dispatcher (select/dispatch.hpp) chooses one of the collective's
// candidates, and the plan is built from the chosen one.
#pragma once

#include <boost/hana/unpack.hpp>
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>

#include "../communicator.hpp"
#include "../plan/plan_for.hpp"
#include "../plan/variant.hpp"
#include "dispatch.hpp"
#include "policy.hpp"
#include "traits.hpp"

namespace hpcoll {

namespace schedule {

struct automatic {
  static constexpr const char* name = "automatic";

  /// The plan of Shape's `index`-th candidate, as a variant over all of them.
  template <dispatchable Shape>
  static auto pick(const Shape& s, std::size_t index) {
    return boost::hana::unpack(candidates<Shape>, [&](auto... types) {
      return pick_from<0, typename decltype(types)::type...>(s, index);
    });
  }

  /// The plan the dispatcher chooses from the current machine file, tuning
  /// table and environment, without a communicator's memory of decisions,
  /// with the machine's default γ and a core per rank: lets the verifier, the cost model and the
  /// simulator take schedule::automatic like any schedule.
  template <dispatchable Shape>
  static auto plan(const Shape& s) {
    return pick(s, hpcoll::detail::decide_now<Shape, void, void>(s, 1).choice);
  }

private:
  template <std::size_t I, class... Candidates, class Shape>
  static variant_plan<plan_type<Candidates, Shape>...> pick_from(const Shape& s, std::size_t index) {
    if constexpr (I + 1 < sizeof...(Candidates))
      if (index != I) return pick_from<I + 1, Candidates...>(s, index);
    using candidate = std::tuple_element_t<I, std::tuple<Candidates...>>;
    return variant_plan<plan_type<Candidates, Shape>...>(std::in_place_index<I>, plan_for<candidate>(s));
  }
};

}  // namespace schedule

/// schedule::automatic as a policy: chooses per call through the dispatcher
/// (remembered per communicator and call class), builds the chosen
/// candidate's plan.
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
    auto plan(const Shape& s) const { return schedule::automatic::pick(s, index); }
  };

  template <class Op, class T, class Shape>
  static choice<Shape> choose(const communicator& c, const Shape& s) {
    const std::size_t index = detail::dispatch<Shape, Op, T>(c, s);
    return {index, &schedule::candidate_names<Shape>()[index]};
  }
};

}  // namespace hpcoll
