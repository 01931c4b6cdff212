// schedule::automatic — the schedule of the free functions: the dispatcher
// (hpcoll/dispatch.hpp) chooses one of the collective's candidates per call.
#pragma once

#include <boost/hana/unpack.hpp>
#include <cstddef>
#include <tuple>
#include <utility>

#include "../detail/plan_for.hpp"
#include "../detail/variant_plan.hpp"
#include "../dispatch.hpp"
#include "candidates.hpp"

namespace hpcoll::schedule {

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
  /// table and environment (the op's own reduction cost is not known here:
  /// the machine's default γ prices reductions). The collectives call
  /// dispatch() instead, which remembers decisions per communicator.
  template <dispatchable Shape>
  static auto plan(const Shape& s) {
    return pick(s, hpcoll::detail::decide_now<Shape, void, void>(s).choice);
  }

private:
  template <std::size_t I, class... Candidates, class Shape>
  static hpcoll::detail::variant_plan<plan_type<Candidates, Shape>...> pick_from(const Shape& s, std::size_t index) {
    if constexpr (I + 1 < sizeof...(Candidates))
      if (index != I) return pick_from<I + 1, Candidates...>(s, index);
    using candidate = std::tuple_element_t<I, std::tuple<Candidates...>>;
    return hpcoll::detail::variant_plan<plan_type<Candidates, Shape>...>(std::in_place_index<I>,
                                                                         plan_for<candidate>(s));
  }
};

}  // namespace hpcoll::schedule
