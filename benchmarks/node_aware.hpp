// SPDX-License-Identifier: BSD-3-Clause
// The node-aware schedules the benchmarks time (hpcoll_bench --hpcoll_node_aware)
// and price (hpcoll_hierarchy) next to the dispatcher's flat candidates, per
// collective shape: none for the collectives without a node-aware form.
#pragma once

#include <hpcoll/plan/shape.hpp>
#include <hpcoll/schedule/all.hpp>
#include <hpcoll/schedule/hierarchical.hpp>

#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

namespace hpcoll_bench {

namespace hana = boost::hana;
namespace S = hpcoll::schedule;

template <class Shape>
inline constexpr auto node_aware_schedules = hana::tuple_t<>;
template <>
inline constexpr auto node_aware_schedules<hpcoll::allreduce_shape> =
    hana::tuple_t<S::hierarchical<S::binomial, S::recursive_doubling>, S::hierarchical<S::binomial, S::rabenseifner>,
                  S::multi_leader<S::binomial, S::recursive_doubling>, S::multi_leader<S::binomial, S::rabenseifner>>;
template <>
inline constexpr auto node_aware_schedules<hpcoll::bcast_shape> =
    hana::tuple_t<S::hierarchical<S::binomial, S::binomial>, S::hierarchical<S::binomial, S::scatter_ring_allgather>>;
template <>
inline constexpr auto node_aware_schedules<hpcoll::reduce_shape> = hana::tuple_t<S::hierarchical<S::binomial, S::binomial>>;
template <>
inline constexpr auto node_aware_schedules<hpcoll::allgather_shape> =
    hana::tuple_t<S::hierarchical<S::binomial, S::recursive_doubling>, S::hierarchical<S::binomial, S::ring>>;
template <>
inline constexpr auto node_aware_schedules<hpcoll::alltoall_shape> =
    hana::tuple_t<S::hierarchical<S::linear, S::pairwise>, S::hierarchical<S::binomial, S::bruck>>;

}  // namespace hpcoll_bench
