// How schedules are named in errors, explanations and benchmark output.
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

namespace schedule {
/// "outer<first, second>".
template <class First, class Second>
std::string composite_name(const char* outer) {
  return std::string(outer) + "<" + schedule_name<First>() + ", " + schedule_name<Second>() + ">";
}
}  // namespace schedule

}  // namespace hpcoll
