// SPDX-License-Identifier: BSD-3-Clause
// Node-aware schedules: a phase inside every node, a phase among one rank per
// node, a phase inside every node again, each run by an ordinary schedule on
// a group of ranks. The node structure comes with the shape (`nodes`, the
// communicator's node_layout, filled in by the entry points for schedules
// that declare `node_aware`); the group phases are the schedules' own plans
// with their group ranks and buffers translated (group_plan), so executors,
// the verifier and the simulator run them as any other plan.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <utility>

#include "../error.hpp"
#include "../plan/plan.hpp"
#include "../plan/plan_for.hpp"
#include "../plan/sequence.hpp"
#include "../plan/shape.hpp"
#include "../plan/topology.hpp"
#include "properties.hpp"

namespace hpcoll::schedule {

/// Where a group phase's buffers lie in the collective's: region r of buffer
/// b in the phase is region r shifted to `to[b]` in the call.
struct buffer_map {
  struct target {
    buffer buf;
    std::size_t base = 0;
  };
  target input{buffer::input}, output{buffer::output}, scratch{buffer::scratch};

  constexpr region operator()(const region& r) const {
    const target& t = r.buf == buffer::input ? input : r.buf == buffer::output ? output : scratch;
    return {t.buf, t.base + r.offset, r.count};
  }
  /// The first scratch element the phase does not use, given it uses `elems` of its own scratch.
  constexpr std::size_t scratch_end(std::size_t elems) const { return scratch.base + elems; }
};

/// The communicator ranks of a group: group rank g is ranks[g], except group
/// rank `replaced`, which is `replacement` (a root standing in for its node's leader).
struct rank_map {
  const int* ranks = nullptr;
  int replaced = -1;
  int replacement = -1;
  constexpr int operator()(int g) const { return g == replaced ? replacement : ranks[g]; }
};

/// A schedule's plan for one rank of a group, run inside a plan of the whole
/// communicator: peers become communicator ranks, buffers are moved by the
/// buffer map, and the phase lasts `rounds` rounds on every rank (the most
/// any group needs), so ranks of smaller groups and ranks outside every
/// group (`member` false) wait out the same rounds.
template <plan P>
class group_plan {
public:
  static constexpr bool commutative_only = plan_requires_commutative<P>;

  constexpr group_plan(P inner, bool member, int rounds, rank_map ranks, buffer_map buffers)
      : inner_(std::move(inner)), member_(member), rounds_(rounds), ranks_(ranks), buffers_(buffers) {}

  constexpr int rounds() const { return rounds_; }
  constexpr std::size_t scratch_elems() const {
    return member_ ? buffers_.scratch_end(static_cast<std::size_t>(inner_.scratch_elems())) : 0;
  }
  template <class Emit>
  constexpr void round(int r, Emit&& emit) const {
    if (!member_ || r >= inner_.rounds()) return;
    inner_.round(r, [&](const step& st) {
      step moved = st;
      if (moved.is_comm()) moved.peer = ranks_(moved.peer);
      moved.a = buffers_(moved.a);
      moved.b = buffers_(moved.b);
      moved.dst = buffers_(moved.dst);
      emit(moved);
    });
  }

private:
  P inner_;
  bool member_;
  int rounds_;
  rank_map ranks_;
  buffer_map buffers_;
};

namespace hierarchy {

/// The layout a hierarchical plan runs on: the shape's, which must be there
/// and describe the call's communicator.
inline const node_layout& layout_of(const node_layout_ref& nodes, int size) {
  if (!nodes)
    throw error("", "", "a hierarchical schedule needs the communicator's node layout, and the call's shape has none");
  if (nodes->size() != size)
    throw error("", "", detail::concat({"the node layout describes ", std::to_string(nodes->size()),
                                        " ranks, the communicator has ", std::to_string(size)}));
  return *nodes;
}

/// Non-commutative reductions keep rank order node by node, then across
/// nodes in node order: that is rank order only when every node's ranks are
/// consecutive.
inline void check_order(const node_layout& nodes, bool commutative) {
  if (!commutative && !nodes.ranks_consecutive())
    throw error("", "", "a hierarchical schedule reduces with a non-commutative op only when ranks are numbered node "
                        "by node (every node's ranks consecutive); this communicator's are not, use a flat schedule");
}

/// The most rounds the phase takes on any node: the plan of a node's first
/// rank, for every node size (rounds are the same on every rank of a plan),
/// and for the node of a root not at its node's first place.
template <class F>
int most_rounds_on_nodes(const node_layout& nodes, int root_node, int root_local, F&& rounds_of) {
  int most = 0;
  for (int k : nodes.node_sizes()) most = std::max(most, rounds_of(k, 0));
  if (root_local != 0) most = std::max(most, rounds_of(nodes.node_size(root_node), root_local));
  return most;
}

}  // namespace hierarchy

/// Node-aware collectives, one leader per node: `Intra` runs the phases
/// inside the nodes, `Inter` the phase among one rank per node (the node's
/// lowest rank, or the root on the root's node).
///   allreduce: reduce to each node's leader (Intra), allreduce among the
///              leaders (Inter), bcast from each leader (Intra);
///   bcast:     bcast among the root and the other nodes' leaders (Inter),
///              then inside every node (Intra);
///   reduce:    reduce inside every node to the root or the leader (Intra),
///              then among them to the root (Inter).
/// Nodes may differ in size, hold one rank, or be numbered round-robin.
/// Non-commutative ops are reduced in rank order when ranks are numbered
/// node by node; on other layouts the plan refuses them (hpcoll::error on
/// every rank, before any message).
template <class Intra, class Inter>
struct hierarchical {
  static std::string name() { return composite_name<Intra, Inter>("hierarchical"); }
  /// The entry points give the shape the communicator's node layout.
  static constexpr bool node_aware = true;

  static auto plan(const allreduce_shape& s)
    requires serves<Intra, reduce_shape> && serves<Inter, allreduce_shape> && serves<Intra, bcast_shape>
  {
    const node_layout& nodes = hierarchy::layout_of(s.nodes, s.size);
    hierarchy::check_order(nodes, s.commutative);
    const int node = nodes.node_of(s.rank), local = nodes.local_rank(s.rank), k = nodes.node_size(node);
    const bool leader = local == 0;
    const std::size_t n = s.count;
    const rank_map on_node{nodes.members(node).data()};

    const auto reduce_on = [&](int rank, int size) {
      return reduce_shape{rank, size, 0, n, s.commutative, s.in_place && rank == 0, s.elem_size};
    };
    const int reduce_rounds = hierarchy::most_rounds_on_nodes(
        nodes, 0, 0, [&](int size, int) { return plan_for<Intra>(reduce_on(0, size)).rounds(); });
    const group_plan reduce(plan_for<Intra>(reduce_on(local, k)), true, reduce_rounds, on_node, buffer_map{});

    // Among the leaders, in place in their outputs.
    const auto across = [&](int rank) {
      return allreduce_shape{rank, nodes.nodes(), n, s.commutative, true, s.elem_size};
    };
    const group_plan leaders(plan_for<Inter>(across(leader ? node : 0)), leader, plan_for<Inter>(across(0)).rounds(),
                             rank_map{nodes.leaders().data()}, buffer_map{.input = {buffer::output}});

    const auto bcast_on = [&](int rank, int size) { return bcast_shape{rank, size, 0, n, s.elem_size}; };
    const int bcast_rounds = hierarchy::most_rounds_on_nodes(
        nodes, 0, 0, [&](int size, int) { return plan_for<Intra>(bcast_on(0, size)).rounds(); });
    const group_plan spread(plan_for<Intra>(bcast_on(local, k)), true, bcast_rounds, on_node, buffer_map{});

    return sequence(reduce, leaders, spread);
  }

  static auto plan(const bcast_shape& s)
    requires serves<Inter, bcast_shape> && serves<Intra, bcast_shape>
  {
    const node_layout& nodes = hierarchy::layout_of(s.nodes, s.size);
    const int node = nodes.node_of(s.rank), local = nodes.local_rank(s.rank), k = nodes.node_size(node);
    const int root_node = nodes.node_of(s.root), root_local = nodes.local_rank(s.root);
    const std::size_t n = s.count;
    // One rank per node: the root on its node, the leader on the others.
    const bool represents = node == root_node ? s.rank == s.root : local == 0;
    const auto across = [&](int rank) { return bcast_shape{rank, nodes.nodes(), root_node, n, s.elem_size}; };
    const group_plan first(plan_for<Inter>(across(represents ? node : root_node)), represents,
                           plan_for<Inter>(across(0)).rounds(),
                           rank_map{nodes.leaders().data(), root_node, s.root}, buffer_map{});

    const auto on_node = [&](int rank, int size, int root) { return bcast_shape{rank, size, root, n, s.elem_size}; };
    const int intra_rounds = hierarchy::most_rounds_on_nodes(nodes, root_node, root_local, [&](int size, int root) {
      return plan_for<Intra>(on_node(0, size, root)).rounds();
    });
    const group_plan second(plan_for<Intra>(on_node(local, k, node == root_node ? root_local : 0)), true, intra_rounds,
                            rank_map{nodes.members(node).data()}, buffer_map{});
    return sequence(first, second);
  }

  static auto plan(const reduce_shape& s)
    requires serves<Intra, reduce_shape> && serves<Inter, reduce_shape>
  {
    const node_layout& nodes = hierarchy::layout_of(s.nodes, s.size);
    hierarchy::check_order(nodes, s.commutative);
    const int node = nodes.node_of(s.rank), local = nodes.local_rank(s.rank), k = nodes.node_size(node);
    const int root_node = nodes.node_of(s.root), root_local = nodes.local_rank(s.root);
    const bool is_root = s.rank == s.root;
    const std::size_t n = s.count;
    const bool represents = node == root_node ? is_root : local == 0;
    // A node's result waits in scratch [0, n) on its representative (the
    // root's in its output); the phases' own scratch lies above.
    const buffer_map::target partial = is_root ? buffer_map::target{buffer::output} : buffer_map::target{buffer::scratch};
    const buffer_map::target above{buffer::scratch, n};

    const auto on_node = [&](int rank, int size, int root) {
      return reduce_shape{rank, size, root, n, s.commutative, s.in_place && is_root && rank == root, s.elem_size};
    };
    const int intra_rounds = hierarchy::most_rounds_on_nodes(nodes, root_node, root_local, [&](int size, int root) {
      return plan_for<Intra>(on_node(0, size, root)).rounds();
    });
    const group_plan first(plan_for<Intra>(on_node(local, k, node == root_node ? root_local : 0)), true, intra_rounds,
                           rank_map{nodes.members(node).data()},
                           buffer_map{.output = partial, .scratch = above});

    // Among the representatives, each starting from its node's result.
    const auto across = [&](int rank) {
      return reduce_shape{rank, nodes.nodes(), root_node, n, s.commutative, rank == root_node, s.elem_size};
    };
    const group_plan second(plan_for<Inter>(across(represents ? node : root_node)), represents,
                            plan_for<Inter>(across(0)).rounds(), rank_map{nodes.leaders().data(), root_node, s.root},
                            buffer_map{.input = partial, .output = partial, .scratch = above});
    return sequence(first, second);
  }
};

}  // namespace hpcoll::schedule
