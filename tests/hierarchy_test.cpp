// SPDX-License-Identifier: BSD-3-Clause
// Node layouts, and the symbolic verifier's proof of the hierarchical
// schedules on many of them: regular, irregular, one-rank nodes, round-robin
// and scattered numbering, every size up to 16, every root.
#include <doctest/doctest.h>

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <hpcoll/analysis/simulate.hpp>
#include <hpcoll/analysis/verify.hpp>
#include <hpcoll/plan/topology.hpp>
#include <hpcoll/schedule/all.hpp>
#include <hpcoll/schedule/hierarchical.hpp>

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

namespace hana = boost::hana;
namespace S = hpcoll::schedule;
using hpcoll::node_layout;
using hpcoll::node_numbering;

namespace {

constexpr int max_p = 16;

std::string describe(const node_layout& l) {
  std::ostringstream o;
  o << " on nodes";
  for (int r = 0; r < l.size(); ++r) o << (r ? "," : " ") << l.node_of(r);
  return o.str();
}

/// Layouts of p ranks worth proving a schedule on.
std::vector<node_layout> layouts_of(int p) {
  std::vector<node_layout> all;
  all.push_back(node_layout::by_node_size(p, p));  // one node
  all.push_back(node_layout::by_node_size(p, 1));  // one rank per node
  for (int k : {2, 3, 4})
    if (k < p) all.push_back(node_layout::by_node_size(p, k));  // the last node smaller
  for (int nodes : {2, 3})
    if (nodes < p) {
      std::vector<int> ids(static_cast<std::size_t>(p));
      for (int r = 0; r < p; ++r) ids[static_cast<std::size_t>(r)] = r % nodes;  // round-robin
      all.emplace_back(ids);
    }
  if (p >= 4) {
    // Irregular block sizes with a one-rank node in the middle: 1, 2, 1, the rest.
    std::vector<int> sizes{1, 2, 1};
    if (p > 4) sizes.push_back(p - 4);
    all.push_back(node_layout::from_sizes(sizes));
    // Scattered: rank r on node (r * 7 / 3) mod 3, neither block nor round-robin.
    std::vector<int> ids(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) ids[static_cast<std::size_t>(r)] = (r * 7 / 3) % 3;
    all.emplace_back(ids);
  }
  return all;
}

std::vector<std::size_t> counts_for(int p) {
  const auto n = static_cast<std::size_t>(p);
  return {0, 1, n - 1, n + 1, 2 * n + 3};
}

struct sweep {
  int failures = 0;
  void operator()(const hpcoll::verify::outcome& o, const node_layout& l) {
    if (o || failures++ > 0) return;
    const std::string what = o.failure + describe(l);
    FAIL_CHECK(what);
  }
  ~sweep() { CHECK(failures == 0); }
};

constexpr auto allreduce_schedules =
    hana::tuple_t<S::hierarchical<S::binomial, S::recursive_doubling>, S::hierarchical<S::linear, S::ring>,
                  S::hierarchical<S::binomial, S::rabenseifner>, S::hierarchical<S::knomial<3>, S::linear>,
                  S::multi_leader<S::binomial, S::recursive_doubling>, S::multi_leader<S::linear, S::ring>,
                  S::multi_leader<S::pipeline<4>, S::rabenseifner>>;
constexpr auto bcast_schedules =
    hana::tuple_t<S::hierarchical<S::binomial, S::binomial>, S::hierarchical<S::linear, S::scatter_ring_allgather>,
                  S::hierarchical<S::binomial, S::knomial<4>>>;
constexpr auto allgather_schedules =
    hana::tuple_t<S::hierarchical<S::binomial, S::recursive_doubling>, S::hierarchical<S::linear, S::ring>,
                  S::hierarchical<S::binomial, S::bruck>, S::multi_leader<S::binomial, S::recursive_doubling>,
                  S::multi_leader<S::linear, S::ring>, S::multi_leader<S::binomial, S::bruck>>;
constexpr auto alltoall_schedules =
    hana::tuple_t<S::hierarchical<S::binomial, S::pairwise>, S::hierarchical<S::linear, S::bruck>>;
constexpr auto reduce_schedules =
    hana::tuple_t<S::hierarchical<S::binomial, S::binomial>, S::hierarchical<S::linear, S::binomial>,
                  S::hierarchical<S::binomial, S::rabenseifner_reduce>>;

}  // namespace

TEST_CASE("hierarchy.layout") {
  const node_layout regular = node_layout::regular(3, 4);
  CHECK(regular.size() == 12);
  CHECK(regular.nodes() == 3);
  CHECK(regular.node_of(5) == 1);
  CHECK(regular.local_rank(5) == 1);
  CHECK(regular.leader(2) == 8);
  CHECK(regular.numbering() == node_numbering::block);

  const node_layout rr = node_layout::regular(3, 4, node_numbering::round_robin);
  CHECK(rr.node_of(5) == 2);
  CHECK(rr.local_rank(5) == 1);
  CHECK(rr.members(1)[3] == 10);
  CHECK(rr.numbering() == node_numbering::round_robin);
  CHECK(!rr.ranks_consecutive());

  const node_layout irregular = node_layout::from_sizes({3, 1, 2});
  CHECK(irregular.nodes() == 3);
  CHECK(irregular.node_size(1) == 1);
  CHECK(irregular.leader(2) == 4);
  CHECK(irregular.min_node_size() == 1);
  CHECK(irregular.max_node_size() == 3);
  CHECK(irregular.node_sizes().size() == 3);

  // Node ids in any order and of any value: nodes are numbered by their lowest rank.
  const std::vector<int> ids{42, 7, 42, 7, 9};
  const node_layout scattered(ids);
  CHECK(scattered.node_of(0) == 0);
  CHECK(scattered.node_of(1) == 1);
  CHECK(scattered.node_of(4) == 2);
  CHECK(scattered.local_rank(3) == 1);
  CHECK(scattered.numbering() == node_numbering::irregular);

  CHECK(node_layout::by_node_size(7, 3) == node_layout::from_sizes({3, 3, 1}));
  CHECK(node_layout::by_node_size(7, 3).fingerprint() == node_layout::from_sizes({3, 3, 1}).fingerprint());
  CHECK(regular.fingerprint() != rr.fingerprint());
  CHECK_THROWS(node_layout::from_sizes({2, 0}));
}

TEST_CASE("hierarchy.verify_allreduce") {
  hana::for_each(allreduce_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    constexpr bool any_op = !hpcoll::requires_commutative<Schedule, hpcoll::allreduce_shape>;
    sweep check;
    for (int p = 1; p <= max_p; ++p)
      for (const node_layout& l : layouts_of(p))
        for (std::size_t n : counts_for(p))
          for (bool in_place : {false, true}) {
            check(hpcoll::verify::allreduce<Schedule>(p, n, true, in_place, l), l);
            if (any_op && l.ranks_consecutive()) check(hpcoll::verify::allreduce<Schedule>(p, n, false, in_place, l), l);
          }
  });
}

TEST_CASE("hierarchy.verify_bcast") {
  hana::for_each(bcast_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    for (int p = 1; p <= max_p; ++p)
      for (const node_layout& l : layouts_of(p))
        for (int root = 0; root < p; ++root)
          for (std::size_t n : counts_for(p)) check(hpcoll::verify::bcast<Schedule>(p, root, n, l), l);
  });
}

TEST_CASE("hierarchy.verify_allgather") {
  hana::for_each(allgather_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    for (int p = 1; p <= max_p; ++p)
      for (const node_layout& l : layouts_of(p))
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}})
          for (bool in_place : {false, true}) check(hpcoll::verify::allgather<Schedule>(p, n, in_place, l), l);
  });
}

TEST_CASE("hierarchy.verify_alltoall") {
  hana::for_each(alltoall_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    for (int p = 1; p <= max_p; ++p)
      for (const node_layout& l : layouts_of(p))
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}})
          for (bool in_place : {false, true}) check(hpcoll::verify::alltoall<Schedule>(p, n, in_place, l), l);
  });
}

TEST_CASE("hierarchy.verify_reduce") {
  hana::for_each(reduce_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    constexpr bool any_op = !hpcoll::requires_commutative<Schedule, hpcoll::reduce_shape>;
    sweep check;
    for (int p = 1; p <= max_p; ++p)
      for (const node_layout& l : layouts_of(p))
        for (int root = 0; root < p; ++root)
          for (std::size_t n : counts_for(p))
            for (bool in_place : {false, true}) {
              check(hpcoll::verify::reduce<Schedule>(p, root, n, true, in_place, l), l);
              if (any_op && l.ranks_consecutive())
                check(hpcoll::verify::reduce<Schedule>(p, root, n, false, in_place, l), l);
            }
  });
}

TEST_CASE("hierarchy.refusals") {
  using H = S::hierarchical<S::binomial, S::recursive_doubling>;
  // A non-commutative op on nodes whose ranks are not consecutive, a shape without a layout, a layout of another size.
  const node_layout rr = node_layout::regular(2, 2, node_numbering::round_robin);
  CHECK_THROWS_WITH_AS(hpcoll::verify::allreduce<H>(4, 3, false, false, rr),
                       doctest::Contains("non-commutative op only when ranks are numbered node by node"),
                       hpcoll::error);
  CHECK_THROWS_WITH_AS(hpcoll::verify::allreduce<H>(4, 3), doctest::Contains("needs the communicator's node layout"),
                       hpcoll::error);
  CHECK_THROWS_WITH_AS(hpcoll::verify::allreduce<H>(3, 3, true, false, rr),
                       doctest::Contains("the node layout describes 4 ranks, the communicator has 3"), hpcoll::error);
}

TEST_CASE("hierarchy.simulate") {
  // The network simulator runs the plans as they are.
  const node_layout nodes = node_layout::regular(64, 16);
  using H = S::hierarchical<S::binomial, S::recursive_doubling>;
  const hpcoll::allreduce_shape shape{0, nodes.size(), 1024, true, false, 8, nodes};
  const hpcoll::simulation run = hpcoll::simulate<H>(shape);
  CHECK(run.seconds > 0);
  // Each node: a binomial reduce and bcast over 16 ranks (15 messages each);
  // the 64 leaders: recursive doubling (64 × 6 messages).
  CHECK(run.messages == 64 * (15 + 15) + 64 * 6);
  CHECK(run.rounds == 4 + 6 + 4);
}
