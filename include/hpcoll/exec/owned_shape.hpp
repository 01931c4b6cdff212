// SPDX-License-Identifier: BSD-3-Clause
// A copy of a shape that owns what its spans point to.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "../plan/shape.hpp"

namespace hpcoll::detail {

/// A copy of a shape that owns what its spans point to (caller_spans): a
/// request outlives the call that made it, the packed v-collective forms
/// build their displacements on the fly, and a recorded plan is kept with the
/// call it was recorded for (exec/recorded_plan.hpp).
template <class Shape>
class owned_shape {
public:
  owned_shape() = default;
  explicit owned_shape(const Shape& s) { assign(s); }
  owned_shape(const owned_shape&) = delete;
  owned_shape& operator=(const owned_shape&) = delete;

  /// Becomes a copy of `s` (reusing its storage).
  void assign(const Shape& s) {
    shape_ = s;
    std::size_t i = 0;
    for (std::span<const std::size_t>* member : caller_spans(shape_)) {
      storage_[i].assign(member->begin(), member->end());
      *member = storage_[i++];
    }
  }

  const Shape& get() const noexcept { return shape_; }

private:
  Shape shape_{};
  std::array<std::vector<std::size_t>, std::tuple_size_v<decltype(caller_spans(std::declval<Shape&>()))>> storage_;
};

}  // namespace hpcoll::detail
