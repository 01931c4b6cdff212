// What a schedule declares about itself, read with defaults: its name (for
// errors, explanations, tables and benchmark rows) and whether the cost model
// may price it from a sample of ranks.
#pragma once

#include <string>

namespace hpcoll {

/// A schedule's name: its `name` (a string, or a function returning one for
/// composites, which spell out their phases), or "custom" when it has none.
template <class S>
std::string schedule_name() {
  if constexpr (requires { S::name(); }) return S::name();
  else if constexpr (requires { S::name; }) return std::string(S::name);
  else return "custom";
}

namespace detail {
/// schedule_name<S>() made once, for the program's lifetime: what errors and
/// the schedule counters refer to.
template <class S>
const std::string& schedule_name_of() {
  static const std::string name = schedule_name<S>();
  return name;
}
}  // namespace detail

/// Whether schedule S declares (static member `sampled_cost`) that the busiest
/// rank of each of its rounds is among the ranks the cost model samples above
/// 256 ranks (select/cost.hpp); false when it does not say.
template <class S>
inline constexpr bool samples_ranks = [] {
  if constexpr (requires { S::sampled_cost; }) return static_cast<bool>(S::sampled_cost);
  else return false;
}();

namespace schedule {
/// "outer<first, second>".
template <class First, class Second>
std::string composite_name(const char* outer) {
  return std::string(outer) + "<" + schedule_name<First>() + ", " + schedule_name<Second>() + ">";
}
}  // namespace schedule

}  // namespace hpcoll
