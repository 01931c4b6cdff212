// Per-communicator memory of the dispatcher: its decisions per call class and
// how often each schedule ran.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpcoll {

/// How often a schedule ran for a collective on one communicator.
struct schedule_count {
  std::string_view collective;
  std::string schedule;
  bool dispatched;  ///< chosen by schedule::automatic (else named by the template argument)
  std::uint64_t calls;
};

namespace detail {

/// Calls that the dispatcher treats alike: same collective, message-size class,
/// group (the members of a multicast), op commutativity, in-place form,
/// element size and (op, type).
struct dispatch_key {
  const void* collective;
  int size_class;
  int group;
  bool commutative;
  bool in_place;
  std::size_t elem_size;
  const void* reduction;
  friend bool operator==(const dispatch_key&, const dispatch_key&) = default;
};

class dispatch_cache {
public:
  std::optional<std::size_t> find(const dispatch_key& key) const {
    const std::lock_guard lock(mutex_);
    for (const auto& d : decisions_)
      if (d.key == key) return d.choice;
    return std::nullopt;
  }
  void remember(const dispatch_key& key, std::size_t choice) {
    const std::lock_guard lock(mutex_);
    decisions_.push_back({key, choice});
  }
  /// One more call of `schedule` (a string with static storage duration).
  void count(std::string_view collective, const std::string* schedule, bool dispatched) {
    const std::lock_guard lock(mutex_);
    for (auto& c : counts_)
      if (c.schedule == schedule && c.collective == collective && c.dispatched == dispatched) {
        ++c.calls;
        return;
      }
    counts_.push_back({collective, schedule, dispatched, 1});
  }
  std::vector<schedule_count> counts() const {
    const std::lock_guard lock(mutex_);
    std::vector<schedule_count> out;
    for (const auto& c : counts_) out.push_back({c.collective, *c.schedule, c.dispatched, c.calls});
    return out;
  }

private:
  struct decision {
    dispatch_key key;
    std::size_t choice;
  };
  struct counter {
    std::string_view collective;
    const std::string* schedule;
    bool dispatched;
    std::uint64_t calls;
  };
  mutable std::mutex mutex_;
  std::vector<decision> decisions_;
  std::vector<counter> counts_;
};

/// HPCOLL_VERBOSE set to anything but "" or "0".
inline bool verbose() {
  static const bool on = [] {
    const char* v = std::getenv("HPCOLL_VERBOSE");
    return v && *v && std::string_view(v) != "0";
  }();
  return on;
}

}  // namespace detail
}  // namespace hpcoll
