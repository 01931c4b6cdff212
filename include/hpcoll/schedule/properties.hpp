// SPDX-License-Identifier: BSD-3-Clause
// What a schedule declares about itself, read with defaults: its name (for
// errors, explanations, tables and benchmark rows) and the shortcuts the
// dispatcher's cost walk (select/cost.hpp, predict_sampled) may take with it
// at large p. A schedule that declares none is priced by the exact walk of
// every round of every rank.
//
// The shortcuts, each opted into by a declaration:
//   static constexpr bool sampled_cost = true;  the busiest rank of each round is
//       among a sample of about 5 lg p ranks (see detail::rank_sample in cost.hpp);
//   static constexpr bool cost_hints = true;    the plans give the cost walk hints
//       in their rounds, besides their steps, when the emitter takes them
//       (cost_hint_sink below): executors, the verifier and the simulator never
//       see a hint, and steps stay as they are.
// A plan gives hints like this (schedule/ring.hpp, linear.hpp, flat.hpp):
//   template <class Emit>
//   constexpr void round(int r, Emit&& emit) const {
//     if constexpr (cost_hint_sink<Emit>) {
//       emit.repeat(1, rounds() - r);  // this round costs what each later one does
//       emit.load(round_load::sending(s.size - 1, s.count));  // p − 1 sends, priced at once
//       return;
//     }
//     ... the steps ...
//   }
// tests/cost_test.cpp checks every candidate's shortcuts against the exact walk.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "../plan/plan.hpp"

namespace hpcoll {

/// A schedule's name: its `name` (a string, or a function returning one for
/// composites, which spell out their phases), or "custom" when it has none.
template <class S>
std::string schedule_name() {
  if constexpr (requires { S::name(); }) return S::name();
  else if constexpr (requires { S::name; }) return std::string(S::name);
  else return "custom";
}

namespace detail {
/// schedule_name<S>() made once, for the program's lifetime: what errors and
/// the schedule counters refer to. Inlined: every blocking call asks for it.
template <class S>
[[gnu::always_inline]] inline const std::string& schedule_name_of() {
  static const std::string name = schedule_name<S>();
  return name;
}
}  // namespace detail

/// Whether schedule S declares (static member `sampled_cost`) that the busiest
/// rank of each of its rounds is among the ranks the cost model samples above
/// 64 ranks (select/cost.hpp); false when it does not say. For gatherv and
/// alltoallv the claim is about calls whose blocks all have the same count,
/// the only ones the dispatcher prices with shortcuts.
template <class S>
inline constexpr bool samples_ranks = [] {
  if constexpr (requires { S::sampled_cost; }) return static_cast<bool>(S::sampled_cost);
  else return false;
}();

/// Whether schedule S declares (static member `cost_hints`) that its plans
/// give the cost walk hints (cost_hint_sink); false when it does not say.
template <class S>
inline constexpr bool gives_cost_hints = [] {
  if constexpr (requires { S::cost_hints; }) return static_cast<bool>(S::cost_hints);
  else return false;
}();

/// Whether schedule S declares (static member `node_aware`) that its plans
/// read the communicator's node layout from the shape (`nodes`): the entry
/// points then fill it in (exec/topology.hpp); false when it does not say.
template <class S>
inline constexpr bool uses_node_layout = [] {
  if constexpr (requires { S::node_aware; }) return static_cast<bool>(S::node_aware);
  else return false;
}();

/// One rank's traffic in one round: what the cost model prices.
struct round_load {
  int sends = 0, recvs = 0;
  std::size_t out = 0, in = 0, reduced = 0, copied = 0;

  /// Adds a step as the cost model counts it: empty messages and copies onto
  /// themselves are free.
  constexpr void add(const step& st) {
    switch (st.kind) {
      case step_kind::send:
        if (!st.a.empty()) ++sends, out += st.a.count;
        break;
      case step_kind::recv:
        if (!st.dst.empty()) ++recvs, in += st.dst.count;
        break;
      case step_kind::recv_reduce:
        if (!st.a.empty()) ++recvs, in += st.a.count, reduced += st.a.count;
        break;
      case step_kind::copy:
        if (st.a != st.dst) copied += st.a.count;
        break;
      case step_kind::reduce:
        reduced += st.dst.count;
        break;
    }
  }
  constexpr round_load& operator+=(const round_load& o) {
    sends += o.sends, recvs += o.recvs;
    out += o.out, in += o.in, reduced += o.reduced, copied += o.copied;
    return *this;
  }
  /// `messages` sends, or receives, of `elems` elements each (none when elems is 0).
  static constexpr round_load sending(int messages, std::size_t elems) {
    return elems ? round_load{.sends = messages, .out = static_cast<std::size_t>(messages) * elems} : round_load{};
  }
  static constexpr round_load receiving(int messages, std::size_t elems) {
    return elems ? round_load{.recvs = messages, .in = static_cast<std::size_t>(messages) * elems} : round_load{};
  }
  /// Local copies of `elems` elements in all.
  static constexpr round_load copying(std::size_t elems) { return {.copied = elems}; }
};

/// An emitter that takes cost hints besides steps: only the cost walk's
/// (select/cost.hpp). In round r of a plan, for a schedule declaring `cost_hints`:
///   emit.load(l)            this rank's round also holds the traffic l, in place
///                           of steps the plan then does not emit (a root's p − 1
///                           sends: O(1) to price instead of O(p));
///   emit.repeat(period, times)
///                           rounds [r, r + period·times) cost, period after
///                           period, what the first `period` of them cost (the
///                           busiest rank's time of each round, whoever it is): the
///                           walk prices `period` rounds and multiplies;
///   emit.busiest(rounds, first, growth)
///                           in round r + j, j < rounds, the busiest rank's load is
///                           first + j·growth and no rank's exceeds it in any term:
///                           the walk prices the run without walking it.
/// Any rank's plan may state repeat and busiest (all that state one state the
/// same); a rank's later rounds may restate them, and the walk reads them where
/// a run starts. Hints may take the blocks of a gatherv or an alltoallv for all
/// of the same count: the walk takes hints only for such calls.
template <class Emit>
concept cost_hint_sink = requires(const std::remove_cvref_t<Emit>& e, const round_load& l) {
  e.load(l);
  e.repeat(1, 1);
  e.busiest(1, l, l);
};

namespace schedule {
/// "outer<first, second>".
template <class First, class Second>
std::string composite_name(const char* outer) {
  return std::string(outer) + "<" + schedule_name<First>() + ", " + schedule_name<Second>() + ">";
}
}  // namespace schedule

}  // namespace hpcoll
