// SPDX-License-Identifier: BSD-3-Clause
// The two-level cost model: a schedule's predicted time on a communicator
// that spans several nodes.
//
// Rounds are aligned as in select/cost.hpp. A rank's messages to ranks of its
// own node are priced as there (α, g, β, the protocol step); its messages to
// other nodes cost
//     inter_α + (k − 1)·g + inter_β · max(bytes out, bytes in)   (k of them)
// and the two kinds proceed side by side (shared memory and the network), so
// the rank's time in a round is the longer of the two plus its reductions and
// copies. Every byte that leaves or enters a node also passes the node's
// network port, shared by its ranks, so a rank's messages across take at least
//     inter_α + port_β · max(bytes out of the node, bytes into it)
// A round costs the maximum over ranks, the call the sum over rounds. The parameters are machine::inter_alpha, inter_beta and port_beta
// (plan/machine.hpp), the nodes a node_layout (plan/topology.hpp); docs/hierarchy.md derives them and shows what the model
// predicts.
//
// predict_on_nodes() walks every rank in every round. predict_on_nodes_sampled()
// walks one node for all in rounds where every node does alike (rings,
// exchanges, Bruck: plan/sequence.hpp, round_nodes_alike), which prices the
// O(p)-round schedules at a million ranks in seconds; see its comment for the
// rest. tests/node_cost_test.cpp compares the two walks.
#pragma once

#include <algorithm>
#include <array>
#include <iterator>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "../error.hpp"
#include "../plan/machine.hpp"
#include "../plan/plan.hpp"
#include "../plan/plan_for.hpp"
#include "../plan/shape.hpp"
#include "../plan/topology.hpp"
#include "../schedule/properties.hpp"
#include "cost.hpp"

namespace hpcoll {

namespace detail {

/// One rank's round on nodes: what stays inside its node, what crosses.
struct split_load {
  round_load inside, across;
};

/// A rank's time in a round of the two-level model (see the file comment):
/// its messages across wait for its node's port as long as `port` says.
inline double rank_seconds_on_nodes(const split_load& l, double port, std::size_t elem_size, const machine& m) {
  cost_terms inside = terms(l.inside, elem_size, m, false);
  const cost_terms local{.reduced = inside.reduced, .copied = inside.copied};
  inside.reduced = inside.copied = 0;
  double across = 0;
  if (const int k = std::max(l.across.sends, l.across.recvs); k > 0)
    across = std::max(port, m.inter_alpha + (k - 1) * m.gap +
                                m.inter_beta * static_cast<double>(std::max(l.across.out, l.across.in) * elem_size));
  return std::max(seconds(inside, m), across) + seconds(local, m);
}

/// Builds schedule S's plan of a rank's call.
template <class S>
struct schedule_plans {
  static constexpr bool through_step_sink = false;
  template <class Shape>
  auto operator()(const Shape& call) const {
    return plan_for<S>(call);
  }
};

/// The two-level walk: in round r, the ranks of the nodes `alike_nodes`
/// names where the round is alike on every node, of `other_nodes` elsewhere
/// (each sorted; with no alike_nodes, no round is taken as alike).
/// `plans(call)` builds the plan of the rank `call` is for. Rounds go in
/// blocks, each rank's plan built once a block: a plan is costlier to build
/// than a round to walk (a node-aware plan lays out its groups). The steps
/// of a round go straight into the loads, inlined into the plan's rounds
/// (the simulator's million ranks), or, where `Plans::through_step_sink`,
/// through a step_sink as to the executors: the dispatcher walks its
/// candidates' variant plan, whose rounds the executor has compiled already.
template <class Shape, class Plans>
prediction predict_walking_nodes(const Shape& shape, const machine& m, const node_layout& nodes,
                                 const std::vector<int>& alike_nodes, const std::vector<int>& other_nodes,
                                 const Plans& plans) {
  Shape call = shape;
  if constexpr (requires { call.nodes; }) call.nodes = nodes;  // node-aware schedules plan with it
  prediction result;
  result.rounds = plans(for_rank(call, 0)).rounds();
  const double elem = static_cast<double>(shape.elem_size);

  std::vector<int> walked;
  std::set_union(alike_nodes.begin(), alike_nodes.end(), other_nodes.begin(), other_nodes.end(),
                 std::back_inserter(walked));
  const auto listed = [](const std::vector<int>& v, int n) { return std::binary_search(v.begin(), v.end(), n); };
  constexpr int block = 64;
  std::array<bool, block> round_alike{}, walks{};
  std::array<double, block> slowest{};
  std::vector<split_load> loads;
  std::vector<step> steps;
  for (int r0 = 0; r0 < result.rounds; r0 += block) {
    const int rounds = std::min(block, result.rounds - r0);
    round_alike.fill(false);
    if (!alike_nodes.empty()) {
      const auto plan0 = plans(for_rank(call, 0));
      for (int j = 0; j < rounds; ++j) round_alike[j] = round_nodes_alike(plan0, r0 + j);
    }
    slowest.fill(0);
    for (const int n : walked) {
      const bool in_alike = listed(alike_nodes, n), in_other = listed(other_nodes, n);
      for (int j = 0; j < rounds; ++j) walks[j] = round_alike[j] ? in_alike : in_other;
      const std::span<const int> members = nodes.members(n);
      const std::size_t k = members.size();
      loads.assign(k * static_cast<std::size_t>(rounds), split_load{});
      for (std::size_t i = 0; i < k; ++i) {
        const auto plan = plans(for_rank(call, members[i]));
        for (int j = 0; j < rounds; ++j) {
          if (!walks[j]) continue;
          split_load& load = loads[static_cast<std::size_t>(j) * k + i];
          const auto add = [&](const step& st) {
            (st.is_comm() && nodes.node_of(st.peer) != n ? load.across : load.inside).add(st);
          };
          if constexpr (Plans::through_step_sink) {
            steps.clear();
            plan.round(r0 + j, step_sink(steps));
            for (const step& st : steps) add(st);
          } else {
            plan.round(r0 + j, add);
          }
          // What arrived from another node is reduced by the rank, as what came from its own.
          load.inside.reduced += load.across.reduced;
          load.across.reduced = 0;
        }
      }
      for (int j = 0; j < rounds; ++j) {
        if (!walks[j]) continue;
        const std::span<const split_load> round(loads.data() + static_cast<std::size_t>(j) * k, k);
        std::size_t node_out = 0, node_in = 0;
        for (const split_load& load : round) node_out += load.across.out, node_in += load.across.in;
        const double port = m.inter_alpha + m.port_beta * static_cast<double>(std::max(node_out, node_in)) * elem;
        for (const split_load& load : round)
          slowest[j] = std::max(slowest[j], rank_seconds_on_nodes(load, port, shape.elem_size, m));
      }
    }
    for (int j = 0; j < rounds; ++j) result.seconds += slowest[j];
  }
  return result;
}

/// predict_on_nodes() with plans from `plans`.
template <class Shape, class Plans>
prediction predict_on_nodes(const Shape& shape, const machine& m, const node_layout& nodes, const Plans& plans) {
  std::vector<int> all(static_cast<std::size_t>(nodes.nodes()));
  for (int n = 0; n < nodes.nodes(); ++n) all[static_cast<std::size_t>(n)] = n;
  return predict_walking_nodes(shape, m, nodes, {}, all, plans);
}

/// The most (rank, round) pairs the two-level walk visits in rounds that are
/// not alike on every node before it walks only the sampled nodes.
inline constexpr long long node_walk_budget = 1LL << 26;

/// predict_on_nodes_sampled() with plans from `plans`; `may_sample`: the
/// schedule declares `sampled_cost` or is node-aware.
template <class Shape, class Plans>
prediction predict_on_nodes_sampled(const Shape& shape, const machine& m, const node_layout& nodes, const Plans& plans,
                                    bool may_sample) {
  if (!may_sample || shape.size <= sampled_above || !blocks_alike(shape) || !nodes.ranks_consecutive() ||
      nodes.min_node_size() != nodes.max_node_size())
    return predict_on_nodes(shape, m, nodes, plans);
  Shape call = shape;
  if constexpr (requires { call.nodes; }) call.nodes = nodes;
  std::vector<int> others;
  if (static_cast<long long>(plans(for_rank(call, 0)).rounds()) * shape.size <= node_walk_budget) {
    others.resize(static_cast<std::size_t>(nodes.nodes()));
    for (int n = 0; n < nodes.nodes(); ++n) others[static_cast<std::size_t>(n)] = n;
  } else {
    // The nodes of the first and last two ranks from the root: where the O(p)
    // rounds of the linear schedules put their busiest rank.
    const rank_sample sample(call);
    for (int i = 0; i < std::min(sample.count, 4); ++i) others.push_back(nodes.node_of(sample.ranks[i]));
    std::sort(others.begin(), others.end());
    others.erase(std::unique(others.begin(), others.end()), others.end());
  }
  const std::vector<int> ends = nodes.nodes() > 1 ? std::vector<int>{0, nodes.nodes() - 1} : std::vector<int>{0};
  return predict_walking_nodes(shape, m, nodes, ends, others, plans);
}

/// The node layout must be the call's.
template <class S, class Shape>
void check_layout(const Shape& shape, const node_layout& nodes) {
  if (nodes.size() != shape.size)
    throw error(Shape::name, schedule_name<S>(),
                "the node layout has " + std::to_string(nodes.size()) + " ranks, the call " + std::to_string(shape.size));
}

}  // namespace detail

/// The predicted time of schedule S for the call `shape` on the nodes of
/// `nodes` (machine `m` inside them and between them), walking every rank in
/// every round.
template <class S, class Shape>
  requires serves<S, Shape>
prediction predict_on_nodes(const Shape& shape, const machine& m, const node_layout& nodes) {
  detail::check_layout<S>(shape, nodes);
  return detail::predict_on_nodes(shape, m, nodes, detail::schedule_plans<S>{});
}

/// predict_on_nodes() as fast as the plans allow above 64 ranks, on nodes of
/// one size numbered node by node, for schedules that declare `sampled_cost`
/// or are node-aware (their phases on each node declare which rounds are
/// alike; the phases among nodes walk every node within the budget) and
/// calls whose blocks are alike: a round alike on every node
/// (round_nodes_alike) walks the first and the last node; any other round
/// walks every node while the call's rounds × ranks stay within
/// detail::node_walk_budget — so far the result is predict_on_nodes()'s —
/// and beyond it, in schedules of O(p) rounds, only the nodes of the first
/// and last two ranks from the root, which gives a lower bound: the busiest
/// rank or port may be on a node not walked. Any other call gets predict_on_nodes().
template <class S, class Shape>
  requires serves<S, Shape>
prediction predict_on_nodes_sampled(const Shape& shape, const machine& m, const node_layout& nodes) {
  detail::check_layout<S>(shape, nodes);
  return detail::predict_on_nodes_sampled(shape, m, nodes, detail::schedule_plans<S>{},
                                          samples_ranks<S> || uses_node_layout<S>);
}

}  // namespace hpcoll
