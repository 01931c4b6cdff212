// SPDX-License-Identifier: BSD-3-Clause
// What the selection layer knows of each collective, in one traits class per
// collective shape: the schedules the dispatcher chooses among (and the
// benchmark suite measures), how the size of a call is stated, and what every
// rank of a call can price alike.
//
//   template <> struct collective_traits<allreduce_shape> {
//     static constexpr auto candidates = hana::tuple_t<ring, ...>;   // required
//     static constexpr auto node_aware = hana::tuple_t<hierarchical<...>, ...>;  // default: none
//     static constexpr message_size size = message_size::vector;     // default: all_blocks
//     static priced_shape priced(const allreduce_shape&);              // default: the shape itself
//                                        // (any shape whose plans price alike, e.g. a regular collective's;
//                                        // or template <class S> priced: per candidate S)
//     static int group(const allreduce_shape&);                        // default: 0, every rank
//     template <class S> static double lead_in_seconds(const allreduce_shape&, const machine&);
//                                        // default: 0; what candidate S spends beyond its priced
//                                        // shape's plan (a multicast's hop to its members)
//     static constexpr bool mailboxes = false;  // default: true, its blocking calls send small
//                                               // messages within a node through the node's mailboxes
//   };
//
// The node-aware schedules follow the flat ones among the candidates; the
// model weighs them only for a communicator that spans nodes (select/dispatch.hpp).
// The readers below apply the defaults; the dispatcher, the tuning tables,
// the cost-model tests and the benchmark suite read the traits only through
// them. The multicast's specialisation lives with the multicast (mcast/plan.hpp).
#pragma once

#include <boost/hana/concat.hpp>
#include <boost/hana/size.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>
#include <boost/hana/unpack.hpp>
#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "../plan/machine.hpp"
#include "../plan/plan_for.hpp"
#include "../plan/shape.hpp"
#include "../plan/variant.hpp"
#include "../schedule/all.hpp"
#include "../schedule/properties.hpp"

namespace hpcoll {

/// How the size of a call is stated in tables, explanations and benchmark
/// rows (NCCL's convention), and so which calls share a decision.
enum class message_size : std::uint8_t {
  vector,     ///< the vector every rank holds (bcast, reduce, allreduce, mcast)
  all_blocks, ///< the whole p-block buffer (gather, scatter, allgather, ...; allgatherv: all its blocks)
  per_rank,   ///< counts differ per rank and no rank knows them all (gatherv,
              ///< alltoallv): chosen per communicator size only
};

/// The selection traits of the collective Shape describes (see the top of
/// this file). Specialised for every collective the dispatcher serves.
template <class Shape>
struct collective_traits {};

namespace hana = boost::hana;

/// gatherv and alltoallv are priced as if every block held this many bytes:
/// as gather and alltoall of such blocks, whose plans price alike
/// (tests/cost_test.cpp), so a decision needs no p counts and displacements
/// (1 MiB of fresh memory at p = 65,536, half a millisecond of page faults).
inline constexpr std::uint64_t nominal_block_bytes = 4096;
inline constexpr std::size_t nominal_block_count(std::size_t elem_size) {
  return std::max<std::size_t>(1, nominal_block_bytes / elem_size);
}

// The segmented trees (pipeline, segmented_binary, segmented_binomial) and
// rabenseifner_reduce are no bcast or reduce candidates: priced with the
// built-in machine they displace binomial at np 2 and 4 from 80 kB up, where
// this project's machine measured them up to 2x slower (docs/schedules.md).
template <>
struct collective_traits<bcast_shape> {
  static constexpr auto candidates =
      hana::tuple_t<schedule::binomial, schedule::linear, schedule::scatter_ring_allgather,
                    schedule::scatter_recursive_doubling_allgather, schedule::knomial<4>>;
  static constexpr auto node_aware = hana::tuple_t<schedule::hierarchical<schedule::binomial, schedule::binomial>,
                                                   schedule::hierarchical<schedule::binomial, schedule::scatter_ring_allgather>>;
  static constexpr message_size size = message_size::vector;
};
template <>
struct collective_traits<reduce_shape> {
  static constexpr auto candidates = hana::tuple_t<schedule::binomial, schedule::linear, schedule::knomial<4>>;
  static constexpr auto node_aware = hana::tuple_t<schedule::hierarchical<schedule::binomial, schedule::binomial>>;
  static constexpr message_size size = message_size::vector;
};
template <>
struct collective_traits<allreduce_shape> {
  static constexpr auto candidates =
      hana::tuple_t<schedule::recursive_doubling, schedule::ring, schedule::segmented_ring<>, schedule::rabenseifner,
                    schedule::linear, schedule::reduce_bcast<schedule::binomial, schedule::binomial>>;
  static constexpr auto node_aware =
      hana::tuple_t<schedule::hierarchical<schedule::binomial, schedule::recursive_doubling>,
                    schedule::hierarchical<schedule::binomial, schedule::rabenseifner>,
                    schedule::multi_leader<schedule::binomial, schedule::recursive_doubling>,
                    schedule::multi_leader<schedule::binomial, schedule::rabenseifner>>;
  static constexpr message_size size = message_size::vector;
};
template <>
struct collective_traits<gather_shape> {
  static constexpr auto candidates = hana::tuple_t<schedule::binomial, schedule::linear, schedule::linear_sync<8>>;
};
template <>
struct collective_traits<gatherv_shape> {
  static constexpr auto candidates = hana::tuple_t<schedule::linear, schedule::linear_sync<8>>;
  static constexpr message_size size = message_size::per_rank;
  static gather_shape priced(const gatherv_shape& s) {
    return {s.rank, s.size, s.root, nominal_block_count(s.elem_size), false, s.elem_size};
  }
};
template <>
struct collective_traits<scatter_shape> {
  static constexpr auto candidates = hana::tuple_t<schedule::binomial, schedule::linear, schedule::linear_sync<8>>;
};
template <>
struct collective_traits<allgather_shape> {
  static constexpr auto candidates =
      hana::tuple_t<schedule::recursive_doubling, schedule::bruck, schedule::ring, schedule::linear>;
  static constexpr auto node_aware = hana::tuple_t<schedule::hierarchical<schedule::binomial, schedule::recursive_doubling>,
                                                   schedule::hierarchical<schedule::binomial, schedule::ring>,
                                                   schedule::multi_leader<schedule::binomial, schedule::recursive_doubling>,
                                                   schedule::multi_leader<schedule::binomial, schedule::ring>>;
};
/// Priced with its blocks packed in rank order, the layout every rank shares
/// (displacements are each rank's own, and decisions must be alike).
template <>
struct collective_traits<allgatherv_shape> {
  static constexpr auto candidates =
      hana::tuple_t<schedule::recursive_doubling, schedule::bruck, schedule::ring, schedule::linear>;
  static allgatherv_shape priced(allgatherv_shape s) {
    s.displs = s.starts.first(static_cast<std::size_t>(s.size));
    s.packed = true;
    return s;
  }
};
template <>
struct collective_traits<reduce_scatter_block_shape> {
  static constexpr auto candidates =
      hana::tuple_t<schedule::recursive_halving, schedule::ring, schedule::segmented_ring<>, schedule::linear>;
};
template <>
struct collective_traits<alltoall_shape> {
  static constexpr auto candidates =
      hana::tuple_t<schedule::bruck, schedule::linear, schedule::linear_sync<8>, schedule::pairwise>;
  static constexpr auto node_aware = hana::tuple_t<schedule::hierarchical<schedule::linear, schedule::pairwise>,
                                                   schedule::hierarchical<schedule::binomial, schedule::bruck>>;
};
template <>
struct collective_traits<alltoallv_shape> {
  static constexpr auto candidates = hana::tuple_t<schedule::linear, schedule::linear_sync<8>, schedule::pairwise>;
  static constexpr message_size size = message_size::per_rank;
  static alltoall_shape priced(const alltoallv_shape& s) {
    return {s.rank, s.size, nominal_block_count(s.elem_size), false, s.elem_size};
  }
};

/// The collectives of this header, in the order tables and reports list them.
inline constexpr auto collective_shapes =
    hana::tuple_t<bcast_shape, reduce_shape, allreduce_shape, gather_shape, gatherv_shape, scatter_shape,
                  allgather_shape, allgatherv_shape, reduce_scatter_block_shape, alltoall_shape, alltoallv_shape>;

/// Shapes of the collectives the dispatcher serves.
template <class Shape>
concept dispatchable = requires { collective_traits<Shape>::candidates; };

// ---- Readers, with the defaults ------------------------------------------------

template <dispatchable Shape>
inline constexpr message_size size_rule = [] {
  if constexpr (requires { collective_traits<Shape>::size; }) return collective_traits<Shape>::size;
  else return message_size::all_blocks;
}();

/// Whether the collective's blocking calls send their small messages within
/// a node through the node's mailboxes (the multicast's all go through MPI).
template <dispatchable Shape>
inline constexpr bool takes_mailboxes = [] {
  if constexpr (requires { collective_traits<Shape>::mailboxes; }) return collective_traits<Shape>::mailboxes;
  else return true;
}();

/// The message size of a call as tables and explanations state it (see
/// message_size); the same on every rank of a call.
template <dispatchable Shape>
std::uint64_t message_bytes(const Shape& s) {
  if constexpr (size_rule<Shape> == message_size::vector)
    return s.count * s.elem_size;
  else if constexpr (size_rule<Shape> == message_size::all_blocks && requires { s.total(); })
    return s.total() * s.elem_size;  // blocks of any sizes, all known to every rank (allgatherv)
  else if constexpr (size_rule<Shape> == message_size::all_blocks)
    return s.count * s.elem_size * static_cast<std::uint64_t>(s.size);
  else
    return nominal_block_bytes * static_cast<std::uint64_t>(s.size);
}

/// The in-place flag every rank of a call has alike: a rooted collective's
/// flag is the root's alone, and per-rank collectives are priced out of place.
template <dispatchable Shape>
bool common_in_place(const Shape& call) {
  if constexpr (requires { call.root; } || size_rule<Shape> == message_size::per_rank ||
                !requires { call.in_place; })
    return false;
  else
    return call.in_place;
}

/// Calls f with the shape every rank of a call prices alike: its own with the
/// common in-place flag; for per-rank collectives without their counts and
/// displacements, which only this rank knows (priced() gives the nominal blocks).
template <dispatchable Shape, class F>
decltype(auto) with_common_shape(const Shape& call, F&& f) {
  Shape s = call;
  if constexpr (requires { s.in_place; }) s.in_place = common_in_place(call);
  if constexpr (size_rule<Shape> == message_size::per_rank) {
    static_assert(!std::same_as<decltype(collective_traits<Shape>::priced(s)), Shape>,
                  "a per-rank collective is priced as a shape that needs no counts");
    for (std::span<const std::size_t>* member : caller_spans(s)) *member = {};
  }
  return f(static_cast<const Shape&>(s));
}

/// The shape the candidates are priced on.
template <dispatchable Shape>
auto priced_shape(const Shape& s) {
  if constexpr (requires { collective_traits<Shape>::priced(s); }) return collective_traits<Shape>::priced(s);
  else return s;
}
/// The shape candidate S is priced on (a multicast: the broadcast S runs).
template <class S, dispatchable Shape>
auto candidate_priced_shape(const Shape& s) {
  if constexpr (requires { collective_traits<Shape>::template priced<S>(s); })
    return collective_traits<Shape>::template priced<S>(s);
  else
    return priced_shape(s);
}

/// What candidate S spends beyond the plan of the call's priced shape (a
/// multicast's hop from the master to its members), in seconds on machine m.
template <class S, dispatchable Shape>
double lead_in_seconds(const Shape& s, const machine& m) {
  if constexpr (requires { collective_traits<Shape>::template lead_in_seconds<S>(s, m); })
    return collective_traits<Shape>::template lead_in_seconds<S>(s, m);
  else
    return 0;
}

/// Ranks taking part in a call when not all do (a multicast's members), else 0.
template <dispatchable Shape>
int group_size(const Shape& s) {
  if constexpr (requires { collective_traits<Shape>::group(s); }) return collective_traits<Shape>::group(s);
  else return 0;
}

// ---- Candidates by position and by name -------------------------------------------

namespace detail {
/// The variant plan of the `index`-th of Candidates (from the I-th on) for the call s.
template <std::size_t I, class... Candidates, class Shape>
variant_plan<plan_type<Candidates, Shape>...> candidate_plan_from(const Shape& s, std::size_t index) {
  if constexpr (I + 1 < sizeof...(Candidates))
    if (index != I) return candidate_plan_from<I + 1, Candidates...>(s, index);
  using candidate = std::tuple_element_t<I, std::tuple<Candidates...>>;
  return variant_plan<plan_type<Candidates, Shape>...>(std::in_place_index<I>, plan_for<candidate>(s));
}
}  // namespace detail

namespace schedule {

/// The node-aware candidates of Shape (none by default).
template <dispatchable Shape>
inline constexpr auto node_aware_candidates = [] {
  if constexpr (requires { collective_traits<Shape>::node_aware; }) return collective_traits<Shape>::node_aware;
  else return hana::tuple_t<>;
}();

/// candidates<Shape>: a boost::hana tuple of the schedule types the
/// dispatcher chooses among for the collective of Shape: the flat ones, then
/// the node-aware ones.
template <dispatchable Shape>
inline constexpr auto candidates = hana::concat(collective_traits<Shape>::candidates, node_aware_candidates<Shape>);

template <dispatchable Shape>
inline constexpr std::size_t candidate_count = decltype(hana::size(candidates<Shape>))::value;

/// Calls f(hana::type_c<S>, i) for the i-th candidate S of Shape.
template <dispatchable Shape, class F>
constexpr void for_each_candidate(F&& f) {
  hana::unpack(candidates<Shape>, [&](auto... types) {
    std::size_t i = 0;
    (f(types, i++), ...);
  });
}

/// The plan of Shape's `index`-th candidate for the call s, as a variant over
/// all of them: one plan type per collective, whichever candidate runs.
template <dispatchable Shape>
auto candidate_plan(const Shape& s, std::size_t index) {
  return hana::unpack(candidates<Shape>, [&](auto... types) {
    return hpcoll::detail::candidate_plan_from<0, typename decltype(types)::type...>(s, index);
  });
}

/// The names of Shape's candidates, in order (inlined: a dispatched call names its choice).
template <dispatchable Shape>
[[gnu::always_inline]] inline std::span<const std::string> candidate_names() {
  static const auto names = hana::unpack(candidates<Shape>, [](auto... types) {
    return std::array<std::string, sizeof...(types)>{schedule_name<typename decltype(types)::type>()...};
  });
  return names;
}

/// "binomial, linear, ...": candidates, for error messages.
inline std::string candidate_list(std::span<const std::string> names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

namespace names {
inline std::string without_spaces(std::string_view s) {
  std::string out;
  for (char ch : s)
    if (ch != ' ') out += ch;
  return out;
}
/// The short names users type for the composites that have one.
inline std::string expand_alias(const std::string& name) {
  if (name == "rabenseifner") return "reduce_scatter_allgather<recursive_halving,recursive_doubling>";
  if (name == "scatter_ring_allgather") return "scatter_allgather<binomial,ring>";
  if (name == "scatter_recursive_doubling_allgather") return "scatter_allgather<binomial,recursive_doubling>";
  return name;
}
}  // namespace names

/// The index among `names` of the schedule `name` designates, or names.size()
/// when none does. Accepted: the full name (schedule_name, spaces optional),
/// an alias (rabenseifner, scatter_ring_allgather,
/// scatter_recursive_doubling_allgather), or a name without template
/// arguments when one candidate alone has it ("segmented_ring" for
/// segmented_ring<65536>).
inline std::size_t find_candidate(std::span<const std::string> names, std::string_view name) {
  const std::size_t n = names.size();
  const std::string wanted = names::expand_alias(names::without_spaces(name));
  for (std::size_t i = 0; i < n; ++i)
    if (names::without_spaces(names[i]) == wanted) return i;
  std::size_t found = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (names[i].substr(0, names[i].find('<')) == wanted) {
      if (found != n) return n;  // ambiguous
      found = i;
    }
  }
  return found;
}

/// The index of the candidate of Shape that `name` designates, or candidate_count<Shape>.
template <dispatchable Shape>
std::size_t find_candidate(std::string_view name) {
  return find_candidate(candidate_names<Shape>(), name);
}

}  // namespace schedule

/// What the tuning tables need to know of every collective, made once.
struct collective_entry {
  std::string_view name;
  bool per_rank;  ///< chosen per communicator size only
  std::span<const std::string> candidates;
};
inline std::span<const collective_entry> collective_table() {
  static const auto table = hana::unpack(collective_shapes, [](auto... shapes) {
    return std::array<collective_entry, sizeof...(shapes)>{
        collective_entry{decltype(shapes)::type::name, size_rule<typename decltype(shapes)::type> == message_size::per_rank,
                         schedule::candidate_names<typename decltype(shapes)::type>()}...};
  });
  return table;
}

}  // namespace hpcoll
