// SPDX-License-Identifier: BSD-3-Clause
// The two-level cost model (select/node_cost.hpp): closed forms on two nodes,
// the flat model on one node, and its sampled walk against the full walk on
// nodes of one size, round-robin and irregular layouts.
#include <doctest/doctest.h>

#include <hpcoll/hpcoll.hpp>
#include <hpcoll/select/dispatch.hpp>
#include <hpcoll/schedule/hierarchical.hpp>
#include <hpcoll/select/node_cost.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace S = hpcoll::schedule;
using hpcoll::machine;
using hpcoll::node_layout;

namespace {

constexpr std::size_t never = std::numeric_limits<std::size_t>::max();
/// Distinct parameters inside and between nodes, no protocol step, no in-cache rates.
constexpr machine two_level{.alpha = 0.5e-6, .beta = 1e-10, .gamma = 3e-10, .gap = 0.2e-6, .overhead = 0,
                            .copy = 2e-10, .eager_bytes = never, .cache_bytes = 0, .inter_alpha = 4e-6,
                            .inter_beta = 1.5e-9, .port_beta = 1e-9};

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const hpcoll::error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("node_cost.layout_must_fit_the_call") {
  CHECK(error_of([] {
          (void)hpcoll::predict_on_nodes<S::binomial>(hpcoll::bcast_shape{0, 8, 0, 1, 1}, two_level,
                                                      node_layout::regular(2, 3));
        }).find("the node layout has 6 ranks, the call 8") != std::string::npos);
}

TEST_CASE("node_cost.closed_forms") {
  const machine& m = two_level;
  const double n = 4096;  // bytes
  // One message between two one-rank nodes: the slower of the rank's stream and the port.
  const auto one = hpcoll::predict_on_nodes<S::binomial>(hpcoll::bcast_shape{0, 2, 0, 4096, 1}, m, node_layout::regular(2, 1));
  CHECK(one.seconds == doctest::Approx(m.inter_alpha + n * m.inter_beta).epsilon(1e-12));
  // The same two ranks on one node: the flat model.
  const auto inside = hpcoll::predict_on_nodes<S::binomial>(hpcoll::bcast_shape{0, 2, 0, 4096, 1}, m, node_layout::regular(1, 2));
  CHECK(inside.seconds == doctest::Approx(m.alpha + n * m.beta).epsilon(1e-12));
  // Recursive doubling over 2 nodes × 2 ranks, numbered node by node: round 0
  // pairs ranks inside their node, round 1 across, where both ranks of a node
  // send at once through the node's port: 2n bytes at port_beta outlast one
  // rank's n at inter_beta when 2·port_beta > inter_beta; then each reduces.
  const hpcoll::allreduce_shape sum{0, 4, 512, true, false, 8};
  const double inside_round = m.alpha + n * m.beta + n * m.gamma;
  const double across_round = std::max(m.inter_alpha + n * m.inter_beta, m.inter_alpha + 2 * n * m.port_beta) + n * m.gamma;
  CHECK(hpcoll::predict_on_nodes<S::recursive_doubling>(sum, m, node_layout::regular(2, 2)).seconds ==
        doctest::Approx(inside_round + across_round).epsilon(1e-12));
  // Numbered round-robin, round 0 crosses nodes and round 1 stays inside.
  CHECK(hpcoll::predict_on_nodes<S::recursive_doubling>(sum, m, node_layout::regular(2, 2, hpcoll::node_numbering::round_robin)).seconds ==
        doctest::Approx(inside_round + across_round).epsilon(1e-12));
  // A rank's messages inside its node and across overlap: a linear bcast from
  // rank 0 of 2 nodes × 2 ranks sends one message inside and two across.
  const auto linear = hpcoll::predict_on_nodes<S::linear>(hpcoll::bcast_shape{0, 4, 0, 4096, 1}, m, node_layout::regular(2, 2));
  CHECK(linear.seconds == doctest::Approx(std::max({m.alpha + n * m.beta, m.inter_alpha + m.gap + 2 * n * m.inter_beta,
                                                    m.inter_alpha + 2 * n * m.port_beta}))
                              .epsilon(1e-12));
}

TEST_CASE("node_cost.one_node_is_the_flat_model") {
  const machine m{};
  for (const int p : {1, 2, 5, 8, 13}) {
    const node_layout one = node_layout::regular(1, p);
    S::for_each_candidate<hpcoll::allreduce_shape>([&](auto type, std::size_t) {
      using Sch = typename decltype(type)::type;
      if constexpr (hpcoll::uses_node_layout<Sch>) return;  // no flat walk to compare with
      const hpcoll::allreduce_shape call{0, p, 3000, true, false, 8};
      CHECK(hpcoll::predict_on_nodes<Sch>(call, m, one).seconds ==
            doctest::Approx(hpcoll::predict<Sch>(call, m).seconds).epsilon(1e-12));
    });
    S::for_each_candidate<hpcoll::bcast_shape>([&](auto type, std::size_t) {
      using Sch = typename decltype(type)::type;
      if constexpr (hpcoll::uses_node_layout<Sch>) return;  // no flat walk to compare with
      const hpcoll::bcast_shape call{0, p, p / 2, 100000, 1};
      CHECK(hpcoll::predict_on_nodes<Sch>(call, m, one).seconds ==
            doctest::Approx(hpcoll::predict<Sch>(call, m).seconds).epsilon(1e-12));
    });
  }
}

namespace {

/// The sampled walk against the full walk. Within the walk budget every round
/// walks every node or is alike on all: the same result, but that blocks of an
/// uneven layout differ by one element, and a node's port carries up to its
/// ranks' count of them: in each round, the walk of one node for all may miss
/// ranks_per_node elements' bytes and a message.
struct sampled_check {
  const machine& m;
  int compared = 0;

  template <class Sch, class Shape>
  void check(const Shape& shape, const node_layout& nodes, bool alike) {
    const hpcoll::prediction full = hpcoll::predict_on_nodes<Sch>(shape, m, nodes);
    const hpcoll::prediction fast = hpcoll::predict_on_nodes_sampled<Sch>(shape, m, nodes);
    INFO(Shape::name, " ", hpcoll::schedule_name<Sch>(), " p = ", shape.size, " on ", nodes.nodes(), " nodes (",
         nodes.min_node_size(), " to ", nodes.max_node_size(), " ranks), bytes ", hpcoll::message_bytes(shape));
    CHECK(fast.rounds == full.rounds);
    if (alike) {
      CHECK(fast.seconds == doctest::Approx(full.seconds).epsilon(1e-12).scale(1e-300));
    } else {
      const double ppn = static_cast<double>(shape.size) / nodes.nodes() + 1;
      const double per_round = m.inter_alpha + ppn * static_cast<double>(shape.elem_size) *
                                                   (m.inter_beta + m.port_beta + m.beta + m.gamma + m.copy);
      CHECK(std::abs(fast.seconds - full.seconds) <= full.rounds * per_round * (1 + 1e-12));
    }
    ++compared;
  }
  template <class Shape>
  void each_candidate(const Shape& shape, const node_layout& nodes, bool alike) {
    S::for_each_candidate<Shape>(
        [&](auto type, std::size_t) { check<typename decltype(type)::type>(shape, nodes, alike); });
  }
};

}  // namespace

TEST_CASE("node_cost.sampled_walk") {
  sampled_check c{two_level};
  for (const int p : {72, 96, 130, 256}) {
    const auto P = static_cast<std::size_t>(p);
    std::vector<node_layout> layouts;
    for (const int ppn : {4, 6, 8})
      if (p % ppn == 0) layouts.push_back(node_layout::regular(p / ppn, ppn));
    std::vector<int> round_robin(P), one_large(P);
    for (int q = 0; q < p; ++q) {
      round_robin[static_cast<std::size_t>(q)] = q % (p / 8);
      one_large[static_cast<std::size_t>(q)] = q < p / 3 ? 0 : 1 + (q - p / 3) % 5;
    }
    layouts.emplace_back(round_robin);
    layouts.emplace_back(one_large);
    for (const node_layout& nodes : layouts) {
      for (const std::size_t n : {std::size_t{1}, 4 * P, 4 * P + 3}) {
        const bool alike = n % P == 0;
        for (const int root : {0, p / 3, p - 1}) {
          const hpcoll::bcast_shape bcast{0, p, root, n, 8};
          c.each_candidate(bcast, nodes, alike);
          c.check<S::hierarchical<S::binomial, S::binomial>>(bcast, nodes, alike);
          c.check<S::hierarchical<S::binomial, S::scatter_ring_allgather>>(bcast, nodes, alike);
          const hpcoll::reduce_shape reduce{0, p, root, n, true, false, 8};
          c.each_candidate(reduce, nodes, true);
          c.check<S::hierarchical<S::binomial, S::binomial>>(reduce, nodes, alike);
        }
        const hpcoll::allreduce_shape allreduce{0, p, n, true, false, 8};
        c.each_candidate(allreduce, nodes, alike);
        c.check<S::hierarchical<S::binomial, S::recursive_doubling>>(allreduce, nodes, alike);
        c.check<S::hierarchical<S::binomial, S::ring>>(allreduce, nodes, alike);
        c.check<S::multi_leader<S::binomial, S::rabenseifner>>(allreduce, nodes, alike);
        c.check<S::multi_leader<S::linear, S::ring>>(allreduce, nodes, alike);
      }
      for (const std::size_t n : {std::size_t{1}, std::size_t{64}}) {
        c.each_candidate(hpcoll::gather_shape{0, p, p / 3, n, false, 8}, nodes, true);
        const hpcoll::allgather_shape allgather{0, p, n, false, 8};
        c.each_candidate(allgather, nodes, true);
        c.check<S::hierarchical<S::binomial, S::ring>>(allgather, nodes, true);
        c.check<S::multi_leader<S::binomial, S::ring>>(allgather, nodes, true);
        c.check<S::multi_leader<S::binomial, S::recursive_doubling>>(allgather, nodes, true);
        c.each_candidate(hpcoll::reduce_scatter_block_shape{0, p, n, true, false, 8}, nodes, true);
        const hpcoll::alltoall_shape alltoall{0, p, n, false, 8};
        c.each_candidate(alltoall, nodes, true);
        c.check<S::hierarchical<S::linear, S::pairwise>>(alltoall, nodes, true);
        c.check<S::hierarchical<S::binomial, S::bruck>>(alltoall, nodes, true);
      }
    }
  }
  CHECK(c.compared > 500);
}
