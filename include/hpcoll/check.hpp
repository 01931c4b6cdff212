// Checked mode: ranks agree on the call before any data moves.
#pragma once

#include <cstdlib>
#include <cstring>

namespace hpcoll {

/// Check policies, the second template argument of every collective object.
/// In checked mode one extra small collective verifies that all ranks agree on
/// collective, schedule, root and counts, and that none of them found a bad
/// argument; any disagreement raises hpcoll::error on every rank instead of a
/// hang or corrupted data. Without it, a bad argument raises an error on the
/// rank that sees it (the others may then wait for it, as with MPI).
namespace check {
/// Checked when the environment variable HPCOLL_CHECK is 1 (the default policy).
struct from_env {
  static bool enabled() {
    static const bool on = [] {
      const char* v = std::getenv("HPCOLL_CHECK");
      return v && std::strcmp(v, "0") != 0 && *v != '\0';
    }();
    return on;
  }
};
/// Always checked.
struct always {
  static constexpr bool enabled() { return true; }
};
/// Never checked.
struct never {
  static constexpr bool enabled() { return false; }
};
}  // namespace check

template <class C>
concept check_policy = requires {
  { C::enabled() } -> std::convertible_to<bool>;
};

/// Marks the in-place form of a collective, like MPI_IN_PLACE.
struct in_place_t {
  explicit constexpr in_place_t() = default;
};
inline constexpr in_place_t in_place{};

}  // namespace hpcoll
