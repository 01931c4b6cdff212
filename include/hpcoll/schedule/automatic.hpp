// schedule::automatic — picks a schedule per call. For now it follows fixed
// message-size thresholds in the spirit of MPICH's defaults; the cost-model
// dispatcher replaces the rules, not the interface.
#pragma once

#include <bit>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../detail/plan_for.hpp"
#include "../detail/variant_plan.hpp"
#include "../shape.hpp"
#include "binomial.hpp"
#include "bruck.hpp"
#include "linear.hpp"
#include "linear_sync.hpp"
#include "pairwise.hpp"
#include "recursive_doubling.hpp"
#include "recursive_halving.hpp"
#include "ring.hpp"

namespace hpcoll::schedule {

namespace detail_automatic {

template <class Shape, class... Candidates>
using choice = hpcoll::detail::variant_plan<plan_type<Candidates, Shape>...>;

/// The plan of the `which`-th schedule of Candidates (counting from I), as a
/// variant over all of their plan types.
template <std::size_t I, class... Candidates, class Shape>
choice<Shape, Candidates...> pick_from(const Shape& s, std::size_t which) {
  if constexpr (I + 1 < sizeof...(Candidates))
    if (which != I) return pick_from<I + 1, Candidates...>(s, which);
  using candidate = std::tuple_element_t<I, std::tuple<Candidates...>>;
  return choice<Shape, Candidates...>(std::in_place_index<I>, plan_for<candidate>(s));
}

template <class... Candidates, class Shape>
choice<Shape, Candidates...> pick(const Shape& s, std::size_t which) {
  return pick_from<0, Candidates...>(s, which);
}

constexpr bool power_of_two(int p) { return std::has_single_bit(static_cast<unsigned>(p)); }

}  // namespace detail_automatic

struct automatic {
  static constexpr const char* name = "automatic";

  /// Binomial tree below 12 KiB or 8 ranks, otherwise scatter + ring allgather.
  static auto plan(const bcast_shape& s) {
    const bool short_message = s.count * s.elem_size < 12288 || s.size < 8;
    return detail_automatic::pick<binomial, scatter_allgather<binomial, ring>>(s, short_message ? 0 : 1);
  }
  /// The binomial tree keeps rank order, so it serves every op.
  static auto plan(const reduce_shape& s) { return binomial::plan(s); }
  /// Recursive doubling for short vectors and non-commutative ops,
  /// Rabenseifner otherwise.
  static auto plan(const allreduce_shape& s) {
    const bool rd = !s.commutative || s.count * s.elem_size <= 2048 || s.count < static_cast<std::size_t>(s.size);
    return detail_automatic::pick<recursive_doubling, reduce_scatter_allgather<recursive_halving, recursive_doubling>>(
        s, rd ? 0 : 1);
  }
  static auto plan(const gather_shape& s) { return binomial::plan(s); }
  static auto plan(const gatherv_shape& s) { return linear::plan(s); }
  static auto plan(const scatter_shape& s) { return binomial::plan(s); }
  /// Recursive doubling (powers of two) or Bruck below 80 KiB in total, ring above.
  static auto plan(const allgather_shape& s) {
    const std::size_t total = s.count * s.elem_size * static_cast<std::size_t>(s.size);
    const std::size_t which = total >= 81920 ? 2 : (detail_automatic::power_of_two(s.size) ? 0 : 1);
    return detail_automatic::pick<recursive_doubling, bruck, ring>(s, which);
  }
  /// Recursive halving below 512 KiB in total, ring above; the linear
  /// (rank-ordered) schedule for non-commutative ops.
  static auto plan(const reduce_scatter_block_shape& s) {
    const std::size_t total = s.count * s.elem_size * static_cast<std::size_t>(s.size);
    const std::size_t which = !s.commutative ? 0 : (total < 524288 ? 1 : 2);
    return detail_automatic::pick<linear, recursive_halving, ring>(s, which);
  }
  /// Bruck for small blocks on 8 or more ranks, linear for medium blocks,
  /// pairwise for large ones.
  static auto plan(const alltoall_shape& s) {
    const std::size_t block = s.count * s.elem_size;
    const std::size_t which = (block <= 256 && s.size >= 8) ? 0 : (block <= 32768 ? 1 : 2);
    return detail_automatic::pick<bruck, linear, pairwise>(s, which);
  }
  static auto plan(const alltoallv_shape& s) { return linear_sync<32>::plan(s); }
};

}  // namespace hpcoll::schedule
