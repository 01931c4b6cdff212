// The cost model: a schedule's predicted time, derived by walking its rounds.
//
// For one call (a shape) and a machine, every rank's plan is walked round by
// round. A rank's time in a round is
//     α + (m − 1)·g                 for its m messages (m = max(sends, receives); g = α is Hockney's m·α)
//   + β · max(bytes sent, bytes received)   (links are full duplex)
//   + γ · bytes reduced + copy · bytes copied locally,
// the round costs the maximum over ranks (rounds are aligned: see plan/plan.hpp),
// and the call costs the sum over rounds. The model reads the very plans the
// executors run, so model and schedule cannot drift apart. Everything is
// constexpr: static_assert can compare schedules, and hpcoll::cheapest picks a
// schedule type at compile time.
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <type_traits>

#include "../plan/machine.hpp"
#include "../plan/plan.hpp"
#include "../plan/plan_for.hpp"
#include "../plan/shape.hpp"
#include "../schedule/properties.hpp"

namespace hpcoll {

/// The quantities a cost is made of, summed over rounds along the critical
/// rank of each round (the rank whose round took longest).
struct cost_terms {
  double messages = 0;  ///< α terms (gap terms counted as messages beyond the first)
  double bytes = 0;     ///< β terms
  double reduced = 0;   ///< γ terms
  double copied = 0;    ///< copy terms
};

struct prediction {
  double seconds = 0;
  int rounds = 0;
  cost_terms critical;  ///< what the critical path is made of
};

namespace detail {

/// One rank's traffic in one round.
struct round_load {
  int sends = 0, recvs = 0;
  std::size_t out = 0, in = 0, reduced = 0, copied = 0;

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
  constexpr cost_terms terms(std::size_t elem_size) const {
    const int m = std::max(sends, recvs);
    const auto bytes = [&](std::size_t elems) { return static_cast<double>(elems * elem_size); };
    return {static_cast<double>(m), bytes(std::max(out, in)), bytes(reduced), bytes(copied)};
  }
};

constexpr double seconds(const cost_terms& t, const machine& m) {
  const double latency = t.messages > 0 ? m.alpha + (t.messages - 1) * m.gap : 0;
  return latency + t.bytes * m.beta + t.reduced * m.gamma + t.copied * m.copy;
}

template <class Shape, class F>
constexpr void for_each_sampled_rank(const Shape& shape, F&& f);

/// The cost walk over every rank, or over the sample for_each_sampled_rank picks.
template <class S, bool Sampled, class Shape>
constexpr prediction predict_over(const Shape& shape, const machine& m) {
  prediction result;
  result.rounds = plan_for<S>(for_rank(shape, 0)).rounds();
  for (int r = 0; r < result.rounds; ++r) {
    double slowest = -1;
    cost_terms critical;
    const auto walk = [&](int q) {
      round_load load;
      // A lambda the walk inlines, not a step_sink: O(p) steps a round are common (linear
      // schedules) and an indirect call each made decisions at p = 4096 thirty times slower.
      plan_for<S>(for_rank(shape, q)).round(r, [&](const step& st) { load.add(st); });
      const cost_terms t = load.terms(shape.elem_size);
      if (const double s = seconds(t, m); s > slowest) slowest = s, critical = t;
    };
    if constexpr (Sampled)
      for_each_sampled_rank(shape, walk);
    else
      for (int q = 0; q < shape.size; ++q) walk(q);
    result.seconds += slowest;
    result.critical.messages += critical.messages;
    result.critical.bytes += critical.bytes;
    result.critical.reduced += critical.reduced;
    result.critical.copied += critical.copied;
  }
  return result;
}

/// Above this many ranks the dispatcher walks a sample of ranks (see predict_sampled).
inline constexpr int sampled_above = 256;

/// Calls f for the ranks whose position makes them the busiest of some round
/// in the schedules that declare `sampled_cost`, relative to the root: the
/// first and last few, the powers of two and their neighbours (tree and
/// recursive-doubling partners), the edge of the fold of non-powers of two and
/// the tree nodes above the wrap of the root's blocks.
template <class Shape, class F>
constexpr void for_each_sampled_rank(const Shape& shape, F&& f) {
  const int p = shape.size;
  int root = 0;
  if constexpr (requires { shape.root; }) root = shape.root;
  int picked[256] = {};
  int count = 0;
  const auto add = [&](int v) {
    if (v < 0 || v >= p) return;
    for (int i = 0; i < count; ++i)
      if (picked[i] == v) return;
    picked[count++] = v;
  };
  for (int v = 0; v < 4; ++v) add(v), add(p - 1 - v);
  for (long long b = 1; b < p; b *= 2) add(static_cast<int>(b) - 1), add(static_cast<int>(b)), add(static_cast<int>(b) + 1);
  const int rem = p - static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
  for (int v = 2 * rem - 2; v <= 2 * rem + 1; ++v) add(v);
  // Where a root's blocks wrap from rank p − 1 to rank 0, a tree node's
  // subtree is two pieces: the wrap point and its ancestors.
  const int wrap = p - root;
  for (int k = 0; (1LL << k) < p; ++k) add((wrap >> k) << k), add(((wrap - 1) >> k) << k);
  for (int i = 0; i < count; ++i) f((picked[i] + root) % p);
}

}  // namespace detail

/// The predicted time of schedule S for the call `shape` (any rank's shape of
/// it) on machine `m`, walking every rank.
template <class S, class Shape>
  requires serves<S, Shape>
constexpr prediction predict(const Shape& shape, const machine& m) {
  return detail::predict_over<S, false>(shape, m);
}

/// predict(), but for a schedule that declares `sampled_cost` and above
/// detail::sampled_above ranks, walking only a sample of about 5 lg p ranks
/// that holds the busiest rank of every round (tests/cost_test.cpp compares it
/// with the full walk: equal up to blocks that differ by one element). The
/// dispatcher uses it: the full walk of an O(p)-round schedule visits O(p²)
/// (rank, round) pairs, 0.2 s at p = 1024.
template <class S, class Shape>
  requires serves<S, Shape>
constexpr prediction predict_sampled(const Shape& shape, const machine& m) {
  if constexpr (samples_ranks<S>)
    if (shape.size > detail::sampled_above) return detail::predict_over<S, true>(shape, m);
  return predict<S>(shape, m);
}

namespace detail {
template <auto Shape, machine M, class Best, class... Rest>
struct cheapest_of {
  using type = Best;
};
template <auto Shape, machine M, class Best, class Next, class... Rest>
struct cheapest_of<Shape, M, Best, Next, Rest...> {
  using winner = std::conditional_t<(predict<Next>(Shape, M).seconds < predict<Best>(Shape, M).seconds), Next, Best>;
  using type = typename cheapest_of<Shape, M, winner, Rest...>::type;
};
}  // namespace detail

/// The cheapest of the candidate schedules for a call known at compile time
/// (ties go to the earlier candidate):
///   using S = hpcoll::cheapest<hpcoll::bcast_shape{0, 64, 0, 1 << 20, 1}, hpcoll::machine{},
///                              schedule::binomial, schedule::scatter_ring_allgather>;
///   hpcoll::Bcast<S>{}(c, buffer, 0);
template <auto Shape, machine M, class... Candidates>
  requires(sizeof...(Candidates) > 0)
using cheapest = typename detail::cheapest_of<Shape, M, Candidates...>::type;

}  // namespace hpcoll
