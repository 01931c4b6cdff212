// SPDX-License-Identifier: BSD-3-Clause
// The environment variables that switch library behaviour on and off or set
// a limit, read strictly: a value that is neither is an hpcoll::error naming
// the variable, never taken for a default. (HPCOLL_MACHINE, HPCOLL_TUNING
// and HPCOLL_<COLLECTIVE> name files and schedules: select/.)
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>

#include "error.hpp"

namespace hpcoll::detail {

/// The value of a switch such as HPCOLL_CHECK (`name`, for the error): "" or
/// "0" is off, "1" is on, anything else an hpcoll::error.
inline bool switch_value(std::string_view name, std::string_view value) {
  if (value.empty() || value == "0") return false;
  if (value == "1") return true;
  throw error("", "", concat({name, " is '", value, "'; it must be 0 or 1"}));
}

/// A switch such as HPCOLL_CHECK: unset, "" or "0" is off, "1" is on.
inline bool env_switch(const char* name) {
  const char* value = std::getenv(name);
  return switch_value(name, value ? value : "");
}

/// The value of a positive byte count such as HPCOLL_MAX_MESSAGE_BYTES
/// (`name`, for the error), or `fallback` when "".
inline std::size_t bytes_value(std::string_view name, std::string_view value, std::size_t fallback) {
  if (value.empty()) return fallback;
  std::size_t bytes = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), bytes);
  if (ec != std::errc{} || end != value.data() + value.size() || bytes == 0)
    throw error("", "", concat({name, " is '", value, "'; it must be a positive number of bytes"}));
  return bytes;
}

/// A positive byte count such as HPCOLL_MAX_MESSAGE_BYTES, or `fallback` when unset or "".
inline std::size_t env_bytes(const char* name, std::size_t fallback) {
  const char* value = std::getenv(name);
  return bytes_value(name, value ? value : "", fallback);
}

/// Largest message the executors send in one call. MPI counts are int
/// and some transports mishandle messages near 2 GiB, so larger regions travel
/// as several messages of at most this many bytes (both sides cut the same
/// way). HPCOLL_MAX_MESSAGE_BYTES lowers it, which lets tests exercise the split.
inline std::size_t max_message_bytes() {
  static const std::size_t limit = env_bytes("HPCOLL_MAX_MESSAGE_BYTES", std::size_t{1} << 30);
  return limit;
}

/// HPCOLL_SHARED_MEMORY: unset, "" or "1" is on, "0" off.
inline bool shared_memory_wanted() {
  const char* value = std::getenv("HPCOLL_SHARED_MEMORY");
  return !value || !*value || switch_value("HPCOLL_SHARED_MEMORY", value);
}

/// The largest message a blocking call sends through the shared memory of a
/// node of `ranks` ranks (exec/node_mailboxes.hpp): 8 KiB, halved while the
/// node's rings (ranks² of 16 slots) would take more than 32 MiB, down to
/// 256 B; never more than max_message_bytes() (such a message is never cut);
/// 0 with HPCOLL_SHARED_MEMORY=0 or a node of one rank.
inline std::size_t shared_message_bytes(int ranks) {
  if (ranks < 2 || !shared_memory_wanted()) return 0;
  const auto rings = static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks);
  std::size_t bytes = std::min<std::size_t>(8192, max_message_bytes());
  while (bytes > 256 && rings * 16 * bytes > (std::size_t{32} << 20)) bytes /= 2;
  return bytes;
}

/// HPCOLL_VERBOSE: rank 0 explains the dispatcher's decisions and prints each
/// communicator's schedule counters when it is freed.
inline bool verbose() {
  static const bool on = env_switch("HPCOLL_VERBOSE");
  return on;
}

}  // namespace hpcoll::detail
