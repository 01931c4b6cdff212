// SPDX-License-Identifier: BSD-3-Clause
// Per-communicator memory of the dispatcher: its decisions per call class,
// a service of the communicator (communicator::service).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "../communicator.hpp"
#include "../insert_only_map.hpp"

namespace hpcoll::detail {

/// Calls that the dispatcher treats alike: same collective, message-size class,
/// group (the members of a multicast), op commutativity, in-place form,
/// blocking or not, element size and (op, type).
struct dispatch_key {
  const void* collective;
  int size_class;
  int group;
  bool commutative;
  bool in_place;
  bool blocking;
  std::size_t elem_size;
  const void* reduction;
  friend bool operator==(const dispatch_key&, const dispatch_key&) = default;
};

class dispatch_decisions final : public communicator_service {
public:
  explicit dispatch_decisions(const communicator_facts&) {}

  /// The remembered choice for key's calls: no lock (any thread may call).
  std::optional<std::size_t> find(const dispatch_key& key) {
    const std::size_t* choice = decisions_.find(key, hash(key));
    return choice ? std::optional<std::size_t>(*choice) : std::nullopt;
  }
  /// The first choice remembered for a key stays (every rank made the same).
  void remember(const dispatch_key& key, std::size_t choice) { decisions_.add(key, hash(key), choice); }

private:
  static std::size_t hash(const dispatch_key& k) {
    std::size_t h = reinterpret_cast<std::uintptr_t>(k.collective) >> 3;
    for (const std::size_t part :
         {static_cast<std::size_t>(k.size_class), static_cast<std::size_t>(k.group),
          static_cast<std::size_t>(k.commutative), static_cast<std::size_t>(k.in_place),
          static_cast<std::size_t>(k.blocking), k.elem_size, reinterpret_cast<std::uintptr_t>(k.reduction) >> 3})
      h = h * 31 + part;
    return h;
  }

  insert_only_map<dispatch_key, std::size_t, 256> decisions_;
};

}  // namespace hpcoll::detail
