// SPDX-License-Identifier: BSD-3-Clause
// What the entry points of the collectives deduce from their arguments and
// how they check them: contiguous ranges seen as spans, the first problem
// found, counts and displacements of the v-collectives.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace hpcoll::detail {

/// A contiguous range of elements with a size (what std::ranges::data and
/// std::ranges::size take: vectors, arrays, spans), seen as a span: const for
/// inputs, mutable for outputs. (Stated with <iterator>'s range access
/// alone: <ranges> is not needed to call a collective.)
template <class R>
concept input_range = requires(R& r) {
  std::ranges::data(r);
  std::ranges::size(r);
};
/// The element type of such a range.
template <input_range R>
using element_t = std::remove_cv_t<std::remove_pointer_t<decltype(std::ranges::data(std::declval<R&>()))>>;
template <class R>
concept output_range =
    input_range<R> && !std::is_const_v<std::remove_pointer_t<decltype(std::ranges::data(std::declval<R&>()))>>;

template <input_range R>
auto input_span(const R& r) {
  return std::span<const element_t<R>>(std::ranges::data(r), std::ranges::size(r));
}
template <output_range R>
auto output_span(R&& r) {
  return std::span<element_t<R>>(std::ranges::data(r), std::ranges::size(r));
}

/// Collects the first problem found with a call's arguments. Held by
/// pointer: a call with nothing wrong, every repeated one, builds no string.
class argument_check {
public:
  template <class... Parts>
  void require(bool ok, const Parts&... parts) {
    if (ok || problem_) return;
    problem_ = std::make_unique<std::string>();
    (append(parts), ...);
  }
  void root(int root, int size) { require(root >= 0 && root < size, "root ", root, " is not a rank of a communicator of size ", size); }
  /// Input and output must not share memory unless the in-place form is used.
  template <class T>
  void disjoint(std::span<const T> input, std::span<const T> output) {
    if (input.empty() || output.empty()) return;
    const auto a = reinterpret_cast<std::uintptr_t>(input.data());
    const auto b = reinterpret_cast<std::uintptr_t>(output.data());
    require(a + input.size_bytes() <= b || b + output.size_bytes() <= a,
            "input and output overlap; use the hpcoll::in_place form");
  }
  /// Whether no problem was found.
  bool ok() const noexcept { return !problem_; }
  /// The first problem found (empty when ok()).
  std::string_view problem() const noexcept { return problem_ ? std::string_view(*problem_) : std::string_view(); }

private:
  void append(std::string_view part) { *problem_ += part; }
  template <std::integral I>
  void append(I value) {
    *problem_ += std::to_string(value);
  }

  std::unique_ptr<std::string> problem_;
};

/// A range of counts or displacements as std::size_t: a range of
/// std::size_t as it is, any other integer type copied into `storage` (a
/// negative value is an argument problem, named after `what`).
template <input_range R>
std::span<const std::size_t> as_sizes(const R& r, std::vector<std::size_t>& storage, argument_check& args,
                                      const char* what) {
  using I = element_t<R>;
  static_assert(std::is_integral_v<I>, "hpcoll: counts and displacements must be integers");
  if constexpr (std::same_as<I, std::size_t>) {
    return input_span(r);
  } else {
    storage.clear();
    storage.reserve(std::ranges::size(r));
    for (const I v : r) {
      if constexpr (std::is_signed_v<I>)
        args.require(v >= 0, what, "[", storage.size(), "] is negative (", v, ")");
      storage.push_back(v < 0 ? 0 : static_cast<std::size_t>(v));
    }
    return storage;
  }
}

/// Block i (counts[i] elements at displs[i]) must lie inside `extent`
/// elements; `what` names the buffer. An empty block's displacement means
/// nothing (MPI does not check it either): the plans place empty blocks at 0.
inline void check_blocks(argument_check& args, std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                         std::size_t extent, int size, const char* what) {
  const auto p = static_cast<std::size_t>(size);
  args.require(counts.size() == p, what, " counts have ", counts.size(), " entries, the communicator has ", size, " ranks");
  args.require(displs.size() == p, what, " displacements have ", displs.size(), " entries, the communicator has ", size,
               " ranks");
  if (!args.ok()) return;
  for (std::size_t i = 0; i < p; ++i) {
    const bool fits = counts[i] == 0 || (displs[i] <= extent && counts[i] <= extent - displs[i]);
    args.require(fits, what, " block ", i, " (", counts[i], " elements at ", displs[i], ") does not fit in ", extent,
                 " elements");
  }
}

/// Displacements of blocks packed one after the other, into `storage`.
inline std::span<const std::size_t> packed_displacements(std::span<const std::size_t> counts,
                                                         std::vector<std::size_t>& storage) {
  storage.resize(counts.size());
  std::size_t at = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    storage[i] = at;
    at += counts[i];
  }
  return storage;
}

}  // namespace hpcoll::detail
