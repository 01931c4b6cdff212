// SPDX-License-Identifier: BSD-3-Clause
// The policies every collective object takes as template arguments besides
// its schedule: whether ranks check the call together (check::) and who
// advances its nonblocking forms (progress::); and hpcoll::in_place.
//
//   hpcoll::Allreduce<Schedule = schedule::automatic, Check = check::from_env, Progress = progress::manual>
#pragma once

#include <concepts>
#include <cstdint>

#include "environment.hpp"

namespace hpcoll {

/// Check policies. In checked mode one extra small collective verifies that
/// all ranks agree on collective, schedule, root and counts, and that none of
/// them found a bad argument; any disagreement raises hpcoll::error on every
/// rank instead of a hang or corrupted data. Without it, a bad argument raises
/// an error on the rank that sees it (the others may then wait for it, as
/// with MPI).
namespace check {
/// Checked when the environment variable HPCOLL_CHECK is 1 (the default policy).
struct from_env {
  [[gnu::always_inline]] static bool enabled() {
    static const bool on = detail::env_switch("HPCOLL_CHECK");
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

/// Who advances a nonblocking operation: the threads that test or wait
/// (manual), the progress thread (thread), or the offload worker, which runs
/// it blocking (offload).
enum class progress_kind : std::uint8_t { manual, thread, offload };

/// Progress policies: who advances a nonblocking collective while it is in
/// flight. The third template argument of every collective object, an
/// explicit template argument of the i<collective> functions
/// (hpcoll::iallreduce<progress::thread>(...)) or their first argument
/// (hpcoll::iallreduce(progress::thread{}, c, ...)). docs/async.md says which
/// to use when; hpcoll/progress.hpp has progress::poll and progress::configure.
namespace progress {

/// LibNBC's progress function: a request advances only inside test(), wait(),
/// wait_all/wait_any and progress::poll. Each of them advances every manual
/// request of the process, so ranks waiting in different orders cannot block
/// each other. No thread, no MPI_THREAD_MULTIPLE; overlap needs poll calls
/// inside the computation.
struct manual {
  static constexpr progress_kind kind = progress_kind::manual;
};

/// One background thread per process advances every thread-policy request in
/// flight, round by round, without help from the caller. Needs
/// MPI_THREAD_MULTIPLE (checked: hpcoll::error otherwise); the thread competes
/// with the application for a core unless one is left free for it.
struct thread {
  static constexpr progress_kind kind = progress_kind::thread;
};

/// TCC: a worker thread runs the requests one at a time, in issue order, with
/// the blocking executor, taking them from a bounded queue. Lowest overhead
/// per collective; a request waits behind every one issued before it. Needs
/// MPI_THREAD_MULTIPLE.
struct offload {
  static constexpr progress_kind kind = progress_kind::offload;
};

}  // namespace progress

template <class P>
concept progress_policy = requires {
  { P::kind } -> std::convertible_to<progress_kind>;
};

/// Marks the in-place form of a collective, like MPI_IN_PLACE.
struct in_place_t {
  explicit constexpr in_place_t() = default;
};
inline constexpr in_place_t in_place{};

}  // namespace hpcoll
