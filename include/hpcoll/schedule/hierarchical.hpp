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
#include <array>
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

/// The communicator ranks of a group: group rank g is ranks[g·stride] (or
/// ranks[starts[g]]: the i-th rank of every node), except group rank
/// `replaced`, which is `replacement` (a root standing in for its node's leader).
struct rank_map {
  const int* ranks = nullptr;
  int replaced = -1;
  int replacement = -1;
  const int* starts = nullptr;
  int stride = 1;
  constexpr int operator()(int g) const {
    return g == replaced ? replacement : ranks[starts ? starts[g] : g * stride];
  }
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

/// Rooted phases on one node, one per slice of the data, side by side: slice
/// i (block i of `slices`) rooted at the node's rank i, by schedule S's plan
/// for Shape (a reduce_shape or bcast_shape on the node's ranks, its rank and
/// size set). Each slice's plan is made when its rounds are emitted: a plan
/// is a few integers, and the slices' count is known only at run time.
/// Messages of two slices between the same ranks match, as both emit the
/// slices in order.
template <class S, class Shape>
class node_slices_plan {
public:
  using slice_plan = plan_type<S, Shape>;
  static constexpr bool commutative_only = plan_requires_commutative<slice_plan>;
  /// Each node runs the same trees on its own ranks, rooted at its own i-th
  /// ranks: on nodes of one size every node does what the first does
  /// (round_nodes_alike).
  static constexpr bool nodes_alike = true;

  constexpr node_slices_plan(Shape on_node, block_layout slices, int rounds, rank_map ranks, bool in_place)
      : shape_(on_node), slices_(slices), rounds_(rounds), ranks_(ranks), in_place_(in_place) {}

  constexpr int rounds() const { return rounds_; }
  constexpr std::size_t scratch_elems() const {
    std::size_t total = 0;
    for (int i = 0; i < slices_.parts; ++i) total += static_cast<std::size_t>(plan(i).scratch_elems());
    return total;
  }
  template <class Emit>
  constexpr void round(int r, Emit&& emit) const {
    std::size_t scratch = 0;
    for (int i = 0; i < slices_.parts; ++i) {
      const slice_plan p = plan(i);
      const auto elems = static_cast<std::size_t>(p.scratch_elems());
      const std::size_t at = slices_.offset(i);
      group_plan(p, true, rounds_, ranks_,
                 buffer_map{{buffer::input, at}, {buffer::output, at}, {buffer::scratch, scratch}})
          .round(r, emit);
      scratch += elems;
    }
  }

  /// Slice i's shape on the node's rank `rank`.
  static constexpr Shape slice(Shape s, int rank, const block_layout& slices, int i, bool in_place) {
    s.rank = rank;
    s.root = i;
    s.count = slices.count(i);
    if constexpr (requires { s.in_place; }) s.in_place = in_place && rank == i;
    return s;
  }

private:
  constexpr slice_plan plan(int i) const { return plan_for<S>(slice(shape_, shape_.rank, slices_, i, in_place_)); }

  Shape shape_;
  block_layout slices_;
  int rounds_;
  rank_map ranks_;
  bool in_place_;
};

/// One round of local copies: rank q's block of n elements from where it
/// lies in node order (node by node, node j's ranks from `base` + j·stride·n)
/// to block q of the output. Nothing when `active` is false (the blocks are
/// in place already).
class node_order_copy_plan {
public:
  /// The same copies on every node's ranks (round_nodes_alike).
  static constexpr bool nodes_alike = true;

  constexpr node_order_copy_plan(const node_layout& nodes, std::size_t n, std::size_t stride, bool active)
      : nodes_(&nodes), n_(n), stride_(stride), active_(active) {}
  constexpr int rounds() const { return 1; }
  constexpr std::size_t scratch_elems() const { return 0; }
  template <class Emit>
  constexpr void round(int, Emit&& emit) const {
    if (!active_ || n_ == 0) return;
    for (int j = 0; j < nodes_->nodes(); ++j) {
      const std::span<const int> members = nodes_->members(j);
      for (std::size_t l = 0; l < members.size(); ++l)
        emit(step::copy(tmp((static_cast<std::size_t>(j) * stride_ + l) * n_, n_),
                        out(static_cast<std::size_t>(members[l]) * n_, n_)));
    }
  }

private:
  const node_layout* nodes_;
  std::size_t n_, stride_;
  bool active_;
};

/// One round of local copies: every rank's block of n elements from its lane
/// slot to its place in the output. The lanes (multi_leader's allgather) lie
/// in scratch lane by lane, each node by node with `slots` blocks per node:
/// node j's rank of local rank l in lane l mod L, slot l / L. Nothing when
/// `active` is false (the lanes are the output).
class lane_order_copy_plan {
public:
  /// The same copies on every rank (round_nodes_alike).
  static constexpr bool nodes_alike = true;

  constexpr lane_order_copy_plan(const node_layout& nodes, std::size_t n, int lanes, std::size_t slots, bool active)
      : nodes_(&nodes), n_(n), lanes_(lanes), slots_(slots), active_(active) {}
  constexpr int rounds() const { return 1; }
  constexpr std::size_t scratch_elems() const { return 0; }
  template <class Emit>
  constexpr void round(int, Emit&& emit) const {
    if (!active_ || n_ == 0) return;
    const auto nodes = static_cast<std::size_t>(nodes_->nodes());
    for (int j = 0; j < nodes_->nodes(); ++j) {
      const std::span<const int> members = nodes_->members(j);
      for (std::size_t l = 0; l < members.size(); ++l) {
        const std::size_t lane = l % static_cast<std::size_t>(lanes_), slot = l / static_cast<std::size_t>(lanes_);
        emit(step::copy(tmp(((lane * nodes + static_cast<std::size_t>(j)) * slots_ + slot) * n_, n_),
                        out(static_cast<std::size_t>(members[l]) * n_, n_)));
      }
    }
  }

private:
  const node_layout* nodes_;
  std::size_t n_;
  int lanes_;
  std::size_t slots_;
  bool active_;
};

/// A leader's regrouping of an alltoall's blocks of n elements, one round of
/// local copies (nothing on other ranks), with K the largest node's rank count:
///   pack:   from `from` [l][d] (node rank l's block for rank d, p per l) to
///           `to` [j][l][m] (for node j's rank m, K·K blocks per node j);
///   unpack: from `from` [j][l][m] (from node j's rank l to this node's rank m)
///           to `to` [m][s] (for this node's rank m from rank s, p per m).
class alltoall_regroup_plan {
public:
  enum class direction : bool { pack, unpack };
  /// Every node's leader copies as many blocks of the same size (round_nodes_alike).
  static constexpr bool nodes_alike = true;
  constexpr alltoall_regroup_plan(const node_layout& nodes, int node, bool leader, std::size_t n, direction dir,
                                  std::size_t from, std::size_t to)
      : nodes_(&nodes), node_(node), leader_(leader), dir_(dir), n_(n), from_(from), to_(to) {}
  constexpr int rounds() const { return 1; }
  constexpr std::size_t scratch_elems() const { return 0; }
  template <class Emit>
  constexpr void round(int, Emit&& emit) const {
    if (!leader_ || n_ == 0) return;
    const auto big = static_cast<std::size_t>(nodes_->max_node_size());
    const auto p = static_cast<std::size_t>(nodes_->size());
    const std::span<const int> here = nodes_->members(node_);
    for (int j = 0; j < nodes_->nodes(); ++j) {
      const std::span<const int> there = nodes_->members(j);
      const auto jj = static_cast<std::size_t>(j);
      // pack: this node's rank l to node j's rank m; unpack: node j's rank l to this node's rank m.
      const std::size_t sources = dir_ == direction::pack ? here.size() : there.size();
      const std::size_t targets = dir_ == direction::pack ? there.size() : here.size();
      for (std::size_t l = 0; l < sources; ++l)
        for (std::size_t m = 0; m < targets; ++m) {
          const std::size_t grouped = ((jj * big + l) * big + m) * n_;
          if (dir_ == direction::pack)
            emit(step::copy(tmp(from_ + (l * p + static_cast<std::size_t>(there[m])) * n_, n_), tmp(to_ + grouped, n_)));
          else
            emit(step::copy(tmp(from_ + grouped, n_), tmp(to_ + (m * p + static_cast<std::size_t>(there[l])) * n_, n_)));
        }
    }
  }

private:
  const node_layout* nodes_;
  int node_;
  bool leader_;
  direction dir_;
  std::size_t n_, from_, to_;
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

/// The slices whose counts are all the counts there are: the first (the
/// larger count) and the last. A plan's rounds depend on its ranks and
/// elements, not on which rank asks or roots it, so these two bound every slice.
constexpr std::array<int, 2> slices_of_each_count(const block_layout& slices) { return {0, slices.parts - 1}; }

/// The most rounds a node_slices_plan takes on any node.
template <class S, class Shape>
int most_slice_rounds(const node_layout& nodes, const Shape& on_node, const block_layout& slices) {
  int most = 0;
  for (int k : nodes.node_sizes()) {
    Shape s = on_node;
    s.size = k;
    for (int i : slices_of_each_count(slices))
      most = std::max(most, plan_for<S>(node_slices_plan<S, Shape>::slice(s, 0, slices, i, false)).rounds());
  }
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

  /// Allgather: gather to each node's leader (Intra), allgather of the nodes'
  /// blocks among the leaders (Inter's allgather phase), bcast of everything
  /// from each leader (Intra). When ranks are numbered node by node and every
  /// node has the same size, all of it happens in the output; otherwise in
  /// scratch, in node order with every node's block as large as the largest
  /// node's, and each rank then copies the blocks to their places.
  static auto plan(const allgather_shape& s)
    requires serves<Intra, gather_shape> && serves<Inter, allgather_phase> && serves<Intra, bcast_shape>
  {
    const node_layout& nodes = hierarchy::layout_of(s.nodes, s.size);
    const int node = nodes.node_of(s.rank), local = nodes.local_rank(s.rank), k = nodes.node_size(node);
    const bool leader = local == 0;
    const std::size_t n = s.count;
    const bool direct = nodes.ranks_consecutive() && nodes.node_sizes().size() == 1;
    const std::size_t stride = static_cast<std::size_t>(nodes.max_node_size());
    const std::size_t block = stride * n, all = static_cast<std::size_t>(nodes.nodes()) * block;
    const buffer data = direct ? buffer::output : buffer::scratch;
    const buffer_map::target above{buffer::scratch, direct ? 0 : all};
    const rank_map on_node{nodes.members(node).data()};

    const auto gather_on = [&](int rank, int size) {
      return gather_shape{rank, size, 0, n, direct && s.in_place && rank == 0, s.elem_size};
    };
    const int gather_rounds = hierarchy::most_rounds_on_nodes(
        nodes, 0, 0, [&](int size, int) { return plan_for<Intra>(gather_on(0, size)).rounds(); });
    const group_plan gather(plan_for<Intra>(gather_on(local, k)), true, gather_rounds, on_node,
                            buffer_map{.output = {data, static_cast<std::size_t>(node) * block}, .scratch = above});

    const auto across = [&](int rank) {
      return allgather_phase{.rank = rank, .size = nodes.nodes(), .root = 0, .layout = {all, nodes.nodes()},
                             .data = data, .base = 0, .scratch_base = above.base};
    };
    const group_plan leaders(plan_for<Inter>(across(leader ? node : 0)), leader, plan_for<Inter>(across(0)).rounds(),
                             rank_map{nodes.leaders().data()}, buffer_map{});

    const auto bcast_on = [&](int rank, int size) { return bcast_shape{rank, size, 0, all, s.elem_size}; };
    const int bcast_rounds = hierarchy::most_rounds_on_nodes(
        nodes, 0, 0, [&](int size, int) { return plan_for<Intra>(bcast_on(0, size)).rounds(); });
    const group_plan spread(plan_for<Intra>(bcast_on(local, k)), true, bcast_rounds, on_node,
                            buffer_map{.output = {data, 0}, .scratch = above});

    return sequence(gather, leaders, spread, node_order_copy_plan(nodes, n, stride, !direct));
  }

  /// Alltoall, aggregated per node (for small blocks): every rank's blocks
  /// are gathered to its node's leader (Intra), which regroups them by
  /// destination node; the leaders exchange one message per pair of nodes
  /// (Inter's alltoall, blocks padded to the largest node's K·K); each leader
  /// regroups what it received by destination rank and scatters it (Intra).
  static auto plan(const alltoall_shape& s)
    requires serves<Intra, gather_shape> && serves<Inter, alltoall_shape> && serves<Intra, scatter_shape>
  {
    const node_layout& nodes = hierarchy::layout_of(s.nodes, s.size);
    const int node = nodes.node_of(s.rank), local = nodes.local_rank(s.rank), k = nodes.node_size(node);
    const bool leader = local == 0;
    const std::size_t n = s.count, p = static_cast<std::size_t>(s.size);
    const auto big = static_cast<std::size_t>(nodes.max_node_size());
    const std::size_t per_node = big * big * n, all_nodes = static_cast<std::size_t>(nodes.nodes()) * per_node;
    // A leader's scratch: by source rank on the node (gathered, later by
    // destination rank), by destination node, by source node, then the phases' own.
    const std::size_t by_rank = 0, by_destination = big * p * n, by_source = by_destination + all_nodes;
    const buffer_map::target above{buffer::scratch, leader ? by_source + all_nodes : 0};
    const rank_map on_node{nodes.members(node).data()};
    using regroup = alltoall_regroup_plan;

    const auto gather_on = [&](int rank, int size) { return gather_shape{rank, size, 0, p * n, false, s.elem_size}; };
    const int gather_rounds = hierarchy::most_rounds_on_nodes(
        nodes, 0, 0, [&](int size, int) { return plan_for<Intra>(gather_on(0, size)).rounds(); });
    const group_plan gather(plan_for<Intra>(gather_on(local, k)), true, gather_rounds, on_node,
                            buffer_map{.output = {buffer::scratch, by_rank}, .scratch = above});

    const auto across = [&](int rank) { return alltoall_shape{rank, nodes.nodes(), per_node, false, s.elem_size}; };
    const group_plan exchange(plan_for<Inter>(across(leader ? node : 0)), leader, plan_for<Inter>(across(0)).rounds(),
                              rank_map{nodes.leaders().data()},
                              buffer_map{.input = {buffer::scratch, by_destination},
                                         .output = {buffer::scratch, by_source}, .scratch = above});

    const auto scatter_on = [&](int rank, int size) { return scatter_shape{rank, size, 0, p * n, false, s.elem_size}; };
    const int scatter_rounds = hierarchy::most_rounds_on_nodes(
        nodes, 0, 0, [&](int size, int) { return plan_for<Intra>(scatter_on(0, size)).rounds(); });
    const group_plan scatter(plan_for<Intra>(scatter_on(local, k)), true, scatter_rounds, on_node,
                             buffer_map{.input = {buffer::scratch, by_rank}, .scratch = above});

    return sequence(reserve_scratch_plan(leader ? by_source + all_nodes : 0), gather,
                    regroup(nodes, node, leader, n, regroup::direction::pack, by_rank, by_destination), exchange,
                    regroup(nodes, node, leader, n, regroup::direction::unpack, by_source, by_rank), scatter);
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

/// Node-aware collectives with one leader per slice, L leaders a node (L,
/// the smallest node's rank count): the i-th ranks of all nodes form lane i,
/// and the lanes cross between nodes side by side, where the single-leader
/// form sends all of a node's data through one rank.
///   allreduce: the data cut into L slices; on every node the slices are
///              reduced side by side, slice i to the node's i-th rank (Intra's
///              reduce); lane i allreduces slice i (Inter); every node's i-th
///              rank broadcasts it on its node (Intra's bcast). Non-commutative
///              ops as for hierarchical<Intra, Inter>.
///   allgather: a node's ranks are dealt to the lanes (local rank l to lane
///              l mod L); on every node each lane's blocks are gathered to the
///              node's i-th rank (Intra's gather; one block, no message, when
///              the node has L ranks); lane i allgathers them (Inter's
///              allgather phase); the node's first L ranks allgather their
///              lanes (Inter's allgather phase again); on a node larger than L
///              the i-th rank broadcasts everything to the rest of its lane
///              (Intra's bcast); each rank copies the blocks to their places.
/// Any node layout.
template <class Intra, class Inter>
struct multi_leader {
  static std::string name() { return composite_name<Intra, Inter>("multi_leader"); }
  static constexpr bool node_aware = true;

  static auto plan(const allreduce_shape& s)
    requires serves<Intra, reduce_shape> && serves<Inter, allreduce_shape> && serves<Intra, bcast_shape>
  {
    const node_layout& nodes = hierarchy::layout_of(s.nodes, s.size);
    hierarchy::check_order(nodes, s.commutative);
    const int node = nodes.node_of(s.rank), local = nodes.local_rank(s.rank), k = nodes.node_size(node);
    const int leaders = nodes.min_node_size();
    const block_layout slices{s.count, leaders};
    const rank_map on_node{nodes.members(node).data()};

    const reduce_shape reduce_on{local, k, 0, 0, s.commutative, false, s.elem_size};
    const node_slices_plan<Intra, reduce_shape> reduce(
        reduce_on, slices, hierarchy::most_slice_rounds<Intra>(nodes, reduce_on, slices), on_node, s.in_place);

    // Slice i among the i-th ranks of all nodes, in place in their outputs.
    const bool holds = local < leaders;
    const int mine = holds ? local : 0;
    const auto across = [&](int rank, int i) {
      return allreduce_shape{rank, nodes.nodes(), slices.count(i), s.commutative, true, s.elem_size};
    };
    int across_rounds = 0;
    for (int i : hierarchy::slices_of_each_count(slices))
      across_rounds = std::max(across_rounds, plan_for<Inter>(across(0, i)).rounds());
    const buffer_map::target slice{buffer::output, slices.offset(mine)};
    const group_plan among(plan_for<Inter>(across(holds ? node : 0, mine)), holds, across_rounds,
                           rank_map{nodes.all_members().data() + mine, -1, -1, nodes.node_starts().data()},
                           buffer_map{.input = slice, .output = slice});

    const bcast_shape bcast_on{local, k, 0, 0, s.elem_size};
    const node_slices_plan<Intra, bcast_shape> spread(
        bcast_on, slices, hierarchy::most_slice_rounds<Intra>(nodes, bcast_on, slices), on_node, false);
    return sequence(reduce, among, spread);
  }

  /// The lanes lie lane by lane, each node by node, `slots` blocks (the most a
  /// lane holds on any node) per node: in scratch, the phases' own scratch
  /// above; or in the output itself when ranks are numbered round-robin on
  /// nodes of one size, where that is rank order.
  static auto plan(const allgather_shape& s)
    requires serves<Intra, gather_shape> && serves<Inter, allgather_phase> && serves<Intra, bcast_shape>
  {
    const node_layout& nodes = hierarchy::layout_of(s.nodes, s.size);
    const int node = nodes.node_of(s.rank), local = nodes.local_rank(s.rank), k = nodes.node_size(node);
    const int lanes = nodes.min_node_size(), lane = local % lanes;
    const bool holds = local < lanes;
    const std::size_t n = s.count;
    const auto slots = static_cast<std::size_t>((nodes.max_node_size() + lanes - 1) / lanes);
    const std::size_t per_lane = static_cast<std::size_t>(nodes.nodes()) * slots * n;
    const std::size_t all = static_cast<std::size_t>(lanes) * per_lane;
    const bool direct = nodes.numbering() == node_numbering::round_robin && nodes.node_sizes().size() == 1;
    const buffer data = direct ? buffer::output : buffer::scratch;
    const buffer_map::target above{buffer::scratch, direct ? 0 : all};

    // Lane i's ranks on a node of k ranks: local ranks i, i + L, ..., (k - i + L - 1) / L of them.
    const int lane_size = (k - lane + lanes - 1) / lanes;
    const rank_map in_lane{.ranks = nodes.members(node).data() + lane, .stride = lanes};
    const auto most_rounds_in_lanes = [&](auto&& rounds_of) {
      int most = 0;
      for (int size : nodes.node_sizes())
        for (int members : {size / lanes, (size + lanes - 1) / lanes}) most = std::max(most, rounds_of(members));
      return most;
    };
    const auto gather_on = [&](int rank, int size) {
      return gather_shape{rank, size, 0, n, direct && s.in_place, s.elem_size};
    };
    const buffer_map::target own = s.in_place ? buffer_map::target{buffer::output, static_cast<std::size_t>(s.rank) * n}
                                              : buffer_map::target{buffer::input};
    const group_plan gather(
        plan_for<Intra>(gather_on(local / lanes, lane_size)), true,
        most_rounds_in_lanes([&](int size) { return plan_for<Intra>(gather_on(0, size)).rounds(); }), in_lane,
        buffer_map{.input = own,
                   .output = {data, static_cast<std::size_t>(lane) * per_lane + static_cast<std::size_t>(node) * slots * n},
                   .scratch = above});

    // Lane i among the i-th ranks of all nodes, then the lanes among a node's L first ranks.
    const auto across = [&](int rank, int i) {
      return allgather_phase{.rank = rank, .size = nodes.nodes(), .root = 0, .layout = {per_lane, nodes.nodes()},
                             .data = data, .base = static_cast<std::size_t>(i) * per_lane,
                             .scratch_base = above.base};
    };
    const group_plan among(plan_for<Inter>(across(holds ? node : 0, holds ? local : 0)), holds,
                           plan_for<Inter>(across(0, 0)).rounds(),
                           rank_map{nodes.all_members().data() + (holds ? local : 0), -1, -1, nodes.node_starts().data()},
                           buffer_map{});
    const auto lanes_on_node = [&](int rank) {
      return allgather_phase{.rank = rank, .size = lanes, .root = 0, .layout = {all, lanes},
                             .data = data, .base = 0, .scratch_base = above.base};
    };
    const group_plan spread(plan_for<Inter>(lanes_on_node(holds ? local : 0)), holds,
                            plan_for<Inter>(lanes_on_node(0)).rounds(), rank_map{nodes.members(node).data()},
                            buffer_map{});

    // A node larger than L: each lane's first rank passes everything on to its lane's other ranks.
    const auto bcast_on = [&](int rank, int size) { return bcast_shape{rank, size, 0, all, s.elem_size}; };
    const group_plan pass_on(
        plan_for<Intra>(bcast_on(local / lanes, lane_size)), true,
        most_rounds_in_lanes([&](int size) { return plan_for<Intra>(bcast_on(0, size)).rounds(); }), in_lane,
        buffer_map{.output = {data, 0}, .scratch = above});

    return sequence(reserve_scratch_plan(above.base), gather, among, spread, pass_on,
                    lane_order_copy_plan(nodes, n, lanes, slots, !direct));
  }
};

}  // namespace hpcoll::schedule
