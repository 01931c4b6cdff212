// The schedules the dispatcher chooses among, per collective, and how users
// name them (HPCOLL_<COLLECTIVE>=..., tuning tables).
#pragma once

#include <boost/hana/size.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>
#include <boost/hana/unpack.hpp>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "../schedules.hpp"
#include "../shape.hpp"
#include "name.hpp"

namespace hpcoll::schedule {

namespace hana = boost::hana;

/// candidates<Shape>: a boost::hana tuple of the schedule types that serve the
/// collective of Shape; the benchmark suite measures exactly these.
template <class Shape>
inline constexpr auto candidates = nullptr;

template <>
inline constexpr auto candidates<bcast_shape> =
    hana::tuple_t<binomial, linear, scatter_ring_allgather, scatter_recursive_doubling_allgather>;
template <>
inline constexpr auto candidates<reduce_shape> = hana::tuple_t<binomial, linear>;
template <>
inline constexpr auto candidates<allreduce_shape> =
    hana::tuple_t<recursive_doubling, ring, segmented_ring<>, rabenseifner, linear, reduce_bcast<binomial, binomial>>;
template <>
inline constexpr auto candidates<gather_shape> = hana::tuple_t<binomial, linear, linear_sync<8>>;
template <>
inline constexpr auto candidates<gatherv_shape> = hana::tuple_t<linear, linear_sync<8>>;
template <>
inline constexpr auto candidates<scatter_shape> = hana::tuple_t<binomial, linear, linear_sync<8>>;
template <>
inline constexpr auto candidates<allgather_shape> = hana::tuple_t<recursive_doubling, bruck, ring, linear>;
template <>
inline constexpr auto candidates<reduce_scatter_block_shape> =
    hana::tuple_t<recursive_halving, ring, segmented_ring<>, linear>;
template <>
inline constexpr auto candidates<alltoall_shape> = hana::tuple_t<bruck, linear, linear_sync<8>, pairwise>;
template <>
inline constexpr auto candidates<alltoallv_shape> = hana::tuple_t<linear, linear_sync<8>, pairwise>;
/// The multicast schedules: every member learns the schedule from the
/// message's header, so only these can run (hpcoll::Mcast rejects others).
template <>
inline constexpr auto candidates<mcast_shape> =
    hana::tuple_t<binomial, scatter_ring_allgather, scatter_recursive_doubling_allgather>;

template <class Shape>
inline constexpr std::size_t candidate_count = decltype(hana::size(candidates<Shape>))::value;

/// Calls f(hana::type_c<S>, i) for the i-th candidate S of Shape.
template <class Shape, class F>
constexpr void for_each_candidate(F&& f) {
  hana::unpack(candidates<Shape>, [&](auto... types) {
    std::size_t i = 0;
    (f(types, i++), ...);
  });
}

/// The names of Shape's candidates, in order.
template <class Shape>
const std::string* candidate_names() {
  static const auto names = hana::unpack(candidates<Shape>, [](auto... types) {
    return std::array<std::string, sizeof...(types)>{schedule_name<typename decltype(types)::type>()...};
  });
  return names.data();
}

/// "binomial, linear, ...": the candidates of Shape, for error messages.
template <class Shape>
std::string candidate_list() {
  std::string names;
  for (std::size_t i = 0; i < candidate_count<Shape>; ++i) names += (i ? ", " : "") + candidate_names<Shape>()[i];
  return names;
}

namespace detail_names {
inline std::string without_spaces(std::string_view s) {
  std::string out;
  for (char ch : s)
    if (ch != ' ') out += ch;
  return out;
}
/// Short names users type for composites.
inline std::string expand_alias(const std::string& name) {
  if (name == "rabenseifner") return "reduce_scatter_allgather<recursive_halving,recursive_doubling>";
  if (name == "scatter_ring_allgather") return "scatter_allgather<binomial,ring>";
  if (name == "scatter_recursive_doubling_allgather") return "scatter_allgather<binomial,recursive_doubling>";
  return name;
}
}  // namespace detail_names

/// The index of the candidate of Shape that `name` designates, or
/// candidate_count<Shape> when none does. Accepted: the full name
/// (schedule_name, spaces optional), an alias (rabenseifner,
/// scatter_ring_allgather, scatter_recursive_doubling_allgather), or a name
/// without template arguments when one candidate alone has it
/// ("segmented_ring" for segmented_ring<65536>).
template <class Shape>
std::size_t find_candidate(std::string_view name) {
  constexpr std::size_t n = candidate_count<Shape>;
  const std::string wanted = detail_names::expand_alias(detail_names::without_spaces(name));
  const std::string* names = candidate_names<Shape>();
  for (std::size_t i = 0; i < n; ++i)
    if (detail_names::without_spaces(names[i]) == wanted) return i;
  std::size_t found = n;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string base = names[i].substr(0, names[i].find('<'));
    if (base == wanted) {
      if (found != n) return n;  // ambiguous
      found = i;
    }
  }
  return found;
}

}  // namespace hpcoll::schedule
