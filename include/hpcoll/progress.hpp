// Progress policies: who advances a nonblocking collective while it is in flight.
#pragma once

#include <concepts>

#include "communicator.hpp"
#include "detail/progress_engine.hpp"

namespace hpcoll {

/// The progress policies, the third template argument of every collective
/// object, an explicit template argument of the i<collective> functions
/// (hpcoll::iallreduce<progress::thread>(...)) or their first argument
/// (hpcoll::iallreduce(progress::thread{}, c, ...)). docs/async.md says which
/// to use when.
namespace progress {

/// LibNBC's progress function: a request advances only inside test(), wait(),
/// wait_all/wait_any and progress::poll. Each of them advances every manual
/// request of the process, so ranks waiting in different orders cannot block
/// each other. No thread, no MPI_THREAD_MULTIPLE; overlap needs poll calls
/// inside the computation.
struct manual {
  static constexpr detail::progress_kind kind = detail::progress_kind::manual;
};

/// One background thread per process advances every thread-policy request in
/// flight, round by round, without help from the caller. Needs
/// MPI_THREAD_MULTIPLE (checked: hpcoll::error otherwise); the thread competes
/// with the application for a core unless one is left free for it.
struct thread {
  static constexpr detail::progress_kind kind = detail::progress_kind::thread;
};

/// TCC: a worker thread runs the requests one at a time, in issue order, with
/// the blocking executor, taking them from a bounded queue. Lowest overhead
/// per collective; a request waits behind every one issued before it. Needs
/// MPI_THREAD_MULTIPLE.
struct offload {
  static constexpr detail::progress_kind kind = detail::progress_kind::offload;
};

using detail::offload_settings;
using detail::thread_settings;

/// Settings of the progress thread or the offload worker; before their first
/// request only (hpcoll::error afterwards).
inline void configure(const thread_settings& s) { detail::progress_thread::configure(s); }
inline void configure(const offload_settings& s) { detail::offload_worker::configure(s); }

/// Advances every manual-policy request in flight (named hpcoll::progress(c)
/// in LibNBC's terms; a C++ namespace and a function cannot share the name).
inline void poll() { detail::manual_engine::instance().advance(); }
/// Advances the manual-policy requests in flight on `c` only.
inline void poll(const communicator& c) { detail::manual_engine::instance().advance(c.native()); }

}  // namespace progress

template <class P>
concept progress_policy = requires {
  { P::kind } -> std::convertible_to<detail::progress_kind>;
};

}  // namespace hpcoll
