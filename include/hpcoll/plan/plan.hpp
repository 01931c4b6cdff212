// SPDX-License-Identifier: BSD-3-Clause
// The vocabulary schedules are written in: regions of buffers, steps, rounds.
//
// A schedule is a pure description. For one rank of one call it builds a
// *plan*: a sequence of rounds, each a handful of steps. Plans are read by the
// MPI executor and the nonblocking operations (exec/), by the cost model
// (select/cost.hpp), and by the symbolic verifier and the network simulator
// (analysis/). A plan never touches MPI or user memory, and emitting a round
// allocates nothing.
//
// Round semantics, shared by every executor:
//   1. post every `recv` and `recv_reduce` of the round (into their landing region);
//   2. run the local steps (`copy`, `reduce`) in order — they overlap the receives;
//   3. post every `send`;
//   4. wait for all of the round's messages;
//   5. run the reductions of the `recv_reduce` steps, in order.
// Messages between two ranks match in posting order. Comm steps with an empty
// region are skipped by both sides. Every rank of a call has the same number of
// rounds (idle ranks emit nothing), so round i is the same moment on every rank.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace hpcoll {

/// The buffers a plan can name. `input` is read-only (it may alias `output` in
/// the in-place forms); `scratch` belongs to the executor and holds
/// `plan.scratch_elems()` elements.
enum class buffer : std::uint8_t { input, output, scratch };

/// `count` elements starting at element `offset` of a buffer.
struct region {
  buffer buf = buffer::output;
  std::size_t offset = 0;
  std::size_t count = 0;

  constexpr region sub(std::size_t skip, std::size_t n) const { return {buf, offset + skip, n}; }
  constexpr bool empty() const { return count == 0; }
  friend constexpr bool operator==(const region&, const region&) = default;
};

constexpr region in(std::size_t offset, std::size_t count) { return {buffer::input, offset, count}; }
constexpr region out(std::size_t offset, std::size_t count) { return {buffer::output, offset, count}; }
constexpr region tmp(std::size_t offset, std::size_t count) { return {buffer::scratch, offset, count}; }

enum class step_kind : std::uint8_t { send, recv, recv_reduce, copy, reduce };

/// One action of a round. Build steps with the named constructors.
struct step {
  step_kind kind = step_kind::copy;
  bool incoming_left = false;  ///< recv_reduce: dst = incoming ⊕ other (else other ⊕ incoming)
  int peer = -1;               ///< send / recv / recv_reduce: the other rank
  region a;                    ///< send: source; recv_reduce: landing; copy: source; reduce: left operand
  region b;                    ///< recv_reduce: other operand; reduce: right operand
  region dst;                  ///< recv: target; recv_reduce, copy, reduce: destination

  static constexpr step send(int peer, region source) { return {step_kind::send, false, peer, source, {}, {}}; }
  static constexpr step recv(int peer, region target) { return {step_kind::recv, false, peer, {}, {}, target}; }
  /// Receive into `landing`; once the round's messages are done,
  /// dst = incoming ⊕ other (incoming_left) or other ⊕ incoming. `landing` may
  /// be `dst` itself when `other` is a different region.
  static constexpr step recv_reduce(int peer, region landing, region other, region dst, bool incoming_left) {
    return {step_kind::recv_reduce, incoming_left, peer, landing, other, dst};
  }
  /// dst = source (a copy of a region onto itself is a no-op).
  static constexpr step copy(region source, region dst) { return {step_kind::copy, false, -1, source, {}, dst}; }
  /// dst = left ⊕ right, element-wise; dst may be left or right.
  static constexpr step reduce(region left, region right, region dst) {
    return {step_kind::reduce, false, -1, left, right, dst};
  }

  constexpr bool is_comm() const {
    return kind == step_kind::send || kind == step_kind::recv || kind == step_kind::recv_reduce;
  }
  /// The region a message is received into.
  constexpr const region& landing() const { return kind == step_kind::recv ? dst : a; }
  /// A step whose regions are all empty: it sends no message, receives none
  /// and copies or combines nothing.
  constexpr bool empty() const { return a.empty() && b.empty() && dst.empty(); }
};

/// Where a plan emits the steps of a round at run time: the executors' list
/// of the round's steps. One concrete type, so each plan's rounds are
/// compiled once for every executor whatever the element type and op, and
/// the append inlines into them. (The cost model passes a lambda of its own.)
class step_sink {
public:
  /// Whether empty steps (step::empty) are kept. The executors skip them:
  /// such a step does nothing, and an alltoallv of p mostly empty blocks
  /// would otherwise have them visited on every call.
  enum class empty_steps { keep, skip };

  explicit step_sink(std::vector<step>& steps, empty_steps empty = empty_steps::keep) noexcept
      : steps_(&steps), skip_empty_(empty == empty_steps::skip) {}
  void operator()(const step& s) const {
    if (!skip_empty_ || !s.empty()) steps_->push_back(s);
  }

private:
  std::vector<step>* steps_;
  bool skip_empty_;
};

/// What every plan provides. `round(r, emit)` calls `emit(step)` for each step
/// of round r (0 <= r < rounds()), for any callable emit (a step_sink at run
/// time).
template <class P>
concept plan = requires(const P& p, const step_sink& emit) {
  { p.rounds() } -> std::convertible_to<int>;
  { p.scratch_elems() } -> std::convertible_to<std::size_t>;
  p.round(0, emit);
};

/// Whether round r of a plan is one in which, on nodes of one size with ranks
/// numbered node by node (the size dividing the communicator's), every node's
/// ranks together do what the first node's ranks do: as many messages and
/// bytes inside the node and across it. A plan declares it for all its rounds
/// with a static member `nodes_alike` (rings, shifted and exclusive-or
/// exchanges, Bruck's rotations); a sequence answers for the phase round r
/// falls in, a variant_plan for its alternative. The two-level cost walk
/// (select/node_cost.hpp) then walks one node for all.
template <class P>
constexpr bool round_nodes_alike(const P& p, int r) {
  if constexpr (requires { p.nodes_alike_in(r); }) return p.nodes_alike_in(r);
  else if constexpr (requires { P::nodes_alike; }) return static_cast<bool>(P::nodes_alike);
  else return false;
}

}  // namespace hpcoll
