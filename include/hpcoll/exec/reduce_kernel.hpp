// SPDX-License-Identifier: BSD-3-Clause
// The element-wise combine loop every executor uses.
#pragma once

#include <cstddef>

namespace hpcoll::detail {

/// dst[i] = op(left[i], right[i]). dst may be left or right (the same
/// elements, never a shifted overlap); with an inlined op on arithmetic types
/// the compiler vectorises the loop behind a runtime alias check.
template <class T, class Op>
inline void combine(T* dst, const T* left, const T* right, std::size_t n, const Op& op) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = op(left[i], right[i]);
}

}  // namespace hpcoll::detail
