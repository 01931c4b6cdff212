// Per-communicator memory of the dispatcher: its decisions per call class,
// a service of the communicator (communicator::service).
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <vector>

#include "../communicator.hpp"

namespace hpcoll::detail {

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

class dispatch_decisions final : public communicator_service {
public:
  explicit dispatch_decisions(const communicator_facts&) {}

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

private:
  struct decision {
    dispatch_key key;
    std::size_t choice;
  };
  mutable std::mutex mutex_;
  std::vector<decision> decisions_;
};

}  // namespace hpcoll::detail
