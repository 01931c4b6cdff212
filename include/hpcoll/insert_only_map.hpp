// SPDX-License-Identifier: BSD-3-Clause
// An insert-only map whose lookups never lock: what a collective call looks
// up per call (its remembered decision, its schedule counter) lives in one
// of these, per communicator.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>

namespace hpcoll::detail {

/// Key -> Value for a small set of keys that only grows; values stay where
/// they are. The first Capacity keys live in a fixed open-addressing table:
/// finding one is a few atomic loads, adding one a compare-and-swap; keys
/// beyond it go to a list behind a mutex. `hash` is the caller's hash of the
/// key, the same for equal keys.
///   find(key, hash)            the value, or nullptr
///   add(key, hash, initial)    the value, made from `initial` if key is new
///   for_each(f)                f(key, value) for every key added so far
template <class Key, class Value, std::size_t Capacity>
class insert_only_map {
  static_assert((Capacity & (Capacity - 1)) == 0, "Capacity is a power of two");

public:
  Value* find(const Key& key, std::size_t hash) { return probe(key, hash, nullptr); }

  template <class Initial>
  Value& add(const Key& key, std::size_t hash, const Initial& initial) {
    return *probe(key, hash, initial);
  }

  template <class F>
  void for_each(F&& f) const {
    for (const slot& s : slots_)
      if (s.state.load(std::memory_order_acquire) == ready) f(s.entry->first, s.entry->second);
    const std::lock_guard lock(mutex_);
    for (const auto& [key, value] : more_) f(key, value);
  }

private:
  enum : int { empty, filling, ready };
  struct slot {
    std::atomic<int> state{empty};
    std::optional<std::pair<const Key, Value>> entry;
  };

  /// Key's value; when it is new, nullptr for `find` (initial is nullptr),
  /// else added from `initial` in the first free slot of its probe sequence.
  template <class Initial>
  Value* probe(const Key& key, std::size_t hash, const Initial& initial) {
    constexpr bool adds = !std::is_null_pointer_v<Initial>;
    for (std::size_t i = 0; i < Capacity; ++i) {
      slot& s = slots_[(hash + i) & (Capacity - 1)];
      int state = s.state.load(std::memory_order_acquire);
      if (state == empty) {
        if constexpr (!adds) {
          return nullptr;  // keys fill the first free slot of their probe sequence
        } else if (s.state.compare_exchange_strong(state, filling, std::memory_order_acquire)) {
          s.entry.emplace(key, initial);
          s.state.store(ready, std::memory_order_release);
          return &s.entry->second;
        }
      }
      while (state == filling) state = s.state.load(std::memory_order_acquire);  // being added right now
      if (s.entry->first == key) return &s.entry->second;
    }
    return beyond(key, initial);
  }

  /// The keys beyond the table.
  template <class Initial>
  [[gnu::cold]] Value* beyond(const Key& key, const Initial& initial) {
    const std::lock_guard lock(mutex_);
    for (auto& [k, value] : more_)
      if (k == key) return &value;
    if constexpr (std::is_null_pointer_v<Initial>)
      return nullptr;
    else
      return &more_.emplace_back(key, initial).second;
  }

  std::array<slot, Capacity> slots_{};
  mutable std::mutex mutex_;
  std::deque<std::pair<const Key, Value>> more_;
};

}  // namespace hpcoll::detail
