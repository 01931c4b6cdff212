// SPDX-License-Identifier: BSD-3-Clause
// Progress of nonblocking collectives: hpcoll::progress::poll, the engines of
// progress::thread and progress::offload and their settings. (The policies
// themselves are in hpcoll/policies.hpp; using progress::thread or
// progress::offload needs this header, which the umbrella includes.)
#pragma once

#include "communicator.hpp"
#include "exec/manual_engine.hpp"
#include "exec/threaded_engines.hpp"
#include "policies.hpp"

namespace hpcoll::progress {

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

}  // namespace hpcoll::progress
