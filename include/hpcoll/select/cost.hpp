// SPDX-License-Identifier: BSD-3-Clause
// The cost model: a schedule's predicted time, derived by walking its rounds.
//
// For one call (a shape) and a machine, every rank's plan is walked round by
// round. A rank's time in a round is
//     α + (m − 1)·g                 for its m messages: sends + receives, one less when it does both
//                                   (an exchange's send and receive overlap; every other message
//                                   costs the rank its own gap); g = α is Hockney's m·α
//   + rendezvous · h                for its h messages beyond the transport's eager size (at least
//                                   eager_bytes · eager_copy: no message costs less than a smaller one)
//   + max(β · max(bytes sent, bytes received),   (links are full duplex; with receiver_copies
//         source_beta · rendezvous bytes sent)    a rendezvous message's bytes are copied by its
//                                                 receiver, and the copies of all of a sender's
//                                                 receivers share its memory's bandwidth; bytes
//                                                 received in eager messages, copied into and out
//                                                 of the transport's buffers, at β + eager_copy)
//   + γ · bytes reduced + copy · bytes copied locally (in-cache rates when the round's bytes fit)
//   + 2 (ranks per core − 1) · switch_time  on a crowded node, when it receives and sends on in
//                                           the next round: the message it waits for needed its
//                                           sender to get a core, what it sends needs it to get one;
//                                           and three times that when it shakes hands (request, copy
//                                           and completion each take a turn on a core; below two ranks
//                                           a core, a forwarding wait only where one of the two
//                                           rounds keeps more ranks busy than there are cores),
// except that a round whose messages fit the node's mailboxes (a blocking call's messages of at
// most mailbox_bytes, machine.hpp) costs mailbox_alpha + (m − 1)·g + mailbox_beta · max(bytes
// sent, bytes received) in place of the first three terms;
// the round costs the maximum over ranks (rounds are aligned: see plan/plan.hpp)
// and, on a crowded node, no less than the cores' share of all its ranks' byte
// terms (β, γ, copy: a core moves the bytes of every rank it runs);
// and the call costs the sum over rounds. The model reads the very plans the
// executors run, so model and schedule cannot drift apart. Everything is
// constexpr: static_assert can compare schedules, and hpcoll::cheapest picks a
// schedule type at compile time.
//
// predict() walks every rank in every round. The dispatcher's predict_sampled()
// takes, above 64 ranks, the shortcuts a schedule declares
// (schedule/properties.hpp): a sample of ranks that holds each round's busiest,
// and the hints its plans give — a round's load at once, runs of rounds that
// cost alike, runs whose busiest load the plan states. With them every
// candidate of every collective is priced in well under a millisecond at
// p = 65536 (docs/dispatch.md, "Large p").
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <functional>
#include <span>
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
  double messages = 0;     ///< α terms (gap terms counted as messages beyond the first)
  double handshakes = 0;   ///< rendezvous terms: messages beyond the eager size
  double bytes = 0;        ///< β terms
  double eager_bytes = 0;  ///< β + eager_copy terms: bytes received in messages within the eager size
  double sourced = 0;      ///< source_beta terms: rendezvous bytes receivers copy out of this rank
  double reduced = 0;      ///< γ terms
  double copied = 0;       ///< copy terms
  double waits = 0;        ///< waits for a core on a crowded node: rounds in which the rank receives what it
                           ///< sends on next round, crowded_handshake_waits for a round in which it shakes hands
  double mailbox_messages = 0;  ///< mailbox_alpha terms (gap terms counted as for messages)
  double mailbox_bytes = 0;     ///< mailbox_beta terms: bytes through the node's mailboxes
  double shared_core = 0;       ///< seconds a crowded node's core spends on the bytes of its other ranks
};

struct prediction {
  double seconds = 0;
  int rounds = 0;
  cost_terms critical;  ///< what the critical path is made of
};

namespace detail {

/// Messages of a round above the eager size: the `count` messages of `elems`
/// elements in all are taken as alike.
constexpr int beyond_eager(int count, std::size_t elems, std::size_t elem_size, const machine& m) {
  return count > 0 && elems * elem_size > m.eager_bytes * static_cast<std::size_t>(count) ? count : 0;
}

/// Whether a rank's messages of a round all go through the node's mailboxes
/// (taken as alike, as beyond_eager takes them).
constexpr bool through_mailboxes(const round_load& l, std::size_t elem_size, const machine& m) {
  const auto fits = [&](int count, std::size_t elems) {
    return elems * elem_size <= m.mailbox_bytes * static_cast<std::size_t>(count);
  };
  return m.mailbox_bytes > 0 && l.sends + l.recvs > 0 && fits(l.sends, l.out) && fits(l.recvs, l.in);
}

/// What a rank's link carries in a round: the side (sent or received) that
/// takes longer, and that side's elements. Received eager messages cost β +
/// eager_copy a byte: they reach the rank after two copies, into the
/// transport's buffers and out of them.
struct link_load {
  std::size_t elems = 0;
  bool received = false;     ///< the received side decides
  int rendezvous_sends = 0;  ///< the round's sends beyond the eager size
  int rendezvous_recvs = 0;
};

constexpr link_load link_of(const round_load& l, std::size_t elem_size, const machine& m) {
  link_load k;
  k.rendezvous_sends = beyond_eager(l.sends, l.out, elem_size, m);
  k.rendezvous_recvs = beyond_eager(l.recvs, l.in, elem_size, m);
  // Receivers that copy out of the sender's memory leave the sender's link idle.
  const std::size_t out = m.receiver_copies && k.rendezvous_sends > 0 ? 0 : l.out;
  const double in_rate = k.rendezvous_recvs > 0 ? m.beta : m.beta + m.eager_copy;
  k.received = static_cast<double>(l.in) * in_rate > static_cast<double>(out) * m.beta;
  k.elems = k.received ? l.in : out;
  return k;
}

/// The waits for a core (the crowding term of seconds()) of a crowded node's
/// round in which a rank shakes hands, however many handshakes it has (a
/// linear root's overlap). A rendezvous message takes three turns on shared
/// cores: its request reaches the receiver, which must get a core; the
/// receiver's copy holds that core; the completion reaches the sender, which
/// must get one. The evaluation runs at 1.5, 2 and 4 ranks a core rank the
/// schedules best at three waits, not one (docs/dispatch.md, "A crowded
/// node's handshakes, measured").
inline constexpr double crowded_handshake_waits = 3;

/// A rank's terms in a round; `forwards`: it receives, and sends in the next round.
constexpr cost_terms terms(const round_load& l, std::size_t elem_size, const machine& m, bool forwards) {
  const int messages = l.sends + l.recvs - (l.sends > 0 && l.recvs > 0 ? 1 : 0);
  const auto bytes = [&](std::size_t elems) { return static_cast<double>(elems * elem_size); };
  if (through_mailboxes(l, elem_size, m))
    return {.reduced = bytes(l.reduced),
            .copied = bytes(l.copied),
            .waits = forwards && l.recvs > 0 ? 1.0 : 0.0,
            .mailbox_messages = static_cast<double>(messages),
            .mailbox_bytes = bytes(std::max(l.out, l.in))};
  const link_load link = link_of(l, elem_size, m);
  const int handshakes = std::max(link.rendezvous_sends, link.rendezvous_recvs);
  // The copies of a sender's rendezvous receivers share its memory; on a crowded node they
  // cannot copy at once (they take turns on the cores).
  const bool shared_source = m.receiver_copies && link.rendezvous_sends > 0 && !(m.ranks_per_core > 1);
  const bool eager_received = link.received && link.rendezvous_recvs == 0;
  return {static_cast<double>(messages),
          static_cast<double>(handshakes),
          eager_received ? 0.0 : bytes(link.elems),
          eager_received ? bytes(link.elems) : 0.0,
          shared_source ? bytes(l.out) : 0.0,
          bytes(l.reduced),
          bytes(l.copied),
          (forwards && l.recvs > 0 ? 1.0 : 0.0) +
              (m.ranks_per_core > 1 && handshakes > 0 ? crowded_handshake_waits : 0.0)};
}

/// The time of the bytes on a rank's link in a round's terms.
constexpr double link_seconds(const cost_terms& t, const machine& m) {
  return t.bytes * m.beta + t.eager_bytes * (m.beta + m.eager_copy) + t.mailbox_bytes * m.mailbox_beta;
}

/// The time a rank's core spends on the bytes of a round's terms: moving,
/// reducing and copying them (rates chosen by the round's bytes).
constexpr double byte_seconds(const cost_terms& t, const machine& m) {
  const auto cached = [&](double bytes) { return bytes <= static_cast<double>(m.cache_bytes); };
  const double gamma = cached(t.reduced) ? m.gamma_cached : m.gamma;
  const double copy = cached(t.copied) ? m.copy_cached : m.copy;
  return std::max(link_seconds(t, m), t.sourced * m.source_beta) + t.reduced * gamma + t.copied * copy;
}

/// The time of one round's terms (a rank's).
constexpr double seconds(const cost_terms& t, const machine& m) {
  const auto latency_of = [&](double messages, double alpha) { return messages > 0 ? alpha + (messages - 1) * m.gap : 0; };
  const double latency = latency_of(t.messages, m.alpha) + latency_of(t.mailbox_messages, m.mailbox_alpha);
  const double crowding = m.ranks_per_core > 1 ? 2 * (m.ranks_per_core - 1) * m.switch_time : 0;
  const double handshakes = t.handshakes > 0 ? t.handshakes * m.handshake() : 0;
  return latency + handshakes + byte_seconds(t, m) + t.waits * crowding + t.shared_core;
}

/// Which side of every threshold of seconds() a round's load is on: between two
/// loads of one regime, time and terms are linear in the load.
constexpr int regime(const round_load& l, std::size_t elem_size, const machine& m) {
  const cost_terms t = terms(l, elem_size, m, false);
  const auto over = [](bool b, int bit) { return b ? 1 << bit : 0; };
  return over(l.sends >= l.recvs, 0) | over(l.out >= l.in, 1) | over(l.sends > 0, 2) | over(l.recvs > 0, 3) |
         over(beyond_eager(l.sends, l.out, elem_size, m) > 0, 4) | over(beyond_eager(l.recvs, l.in, elem_size, m) > 0, 5) |
         over(t.reduced > static_cast<double>(m.cache_bytes), 6) | over(t.copied > static_cast<double>(m.cache_bytes), 7) |
         over(link_seconds(t, m) >= t.sourced * m.source_beta, 8) | over(link_of(l, elem_size, m).received, 9) |
         over(through_mailboxes(l, elem_size, m), 10);
}

/// The cost of some rounds: their time and the critical path's terms.
struct rounds_cost {
  double seconds = 0;
  cost_terms critical;

  constexpr void add(const rounds_cost& o, double times = 1) {
    seconds += times * o.seconds;
    critical.messages += times * o.critical.messages;
    critical.handshakes += times * o.critical.handshakes;
    critical.bytes += times * o.critical.bytes;
    critical.eager_bytes += times * o.critical.eager_bytes;
    critical.sourced += times * o.critical.sourced;
    critical.reduced += times * o.critical.reduced;
    critical.copied += times * o.critical.copied;
    critical.waits += times * o.critical.waits;
    critical.mailbox_messages += times * o.critical.mailbox_messages;
    critical.mailbox_bytes += times * o.critical.mailbox_bytes;
    critical.shared_core += times * o.critical.shared_core;
  }
};

/// Keeps the slowest of the loads it is shown: one round's cost, with the
/// forwarding waits of a crowded node or, cost(false), without them; and how
/// many of the ranks shown were busy (sent or received).
class slowest_rank {
public:
  constexpr slowest_rank(const machine& m, std::size_t elem_size) : m_(&m), elem_size_(elem_size) {}
  constexpr void show(const round_load& load, bool forwards) {
    cost_terms t = terms(load, elem_size_, *m_, forwards);
    const double s = seconds(t, *m_);
    if (s > seconds_) seconds_ = s, critical_ = t;
    if (load.sends + load.recvs > 0) ++busy_;
    all_bytes_ += byte_seconds(t, *m_);
    double u = s;
    if (t.waits > 0) {  // a crowded node's rank that waits for a core: its time without the waits
      t.waits = 0;
      u = seconds(t, *m_);
    }
    if (u > unwaited_) unwaited_ = u, critical_unwaited_ = t;
  }
  constexpr rounds_cost cost(bool waits = true) const {
    if (!waits) return {unwaited_ > 0 ? unwaited_ : 0, critical_unwaited_};
    return {seconds_ > 0 ? seconds_ : 0, critical_};
  }
  /// cost(waits) on a node of `cores` cores that runs more ranks than that:
  /// a core moves the bytes of all its ranks, so the round lasts at least the
  /// cores' share of every rank's byte time (what the slowest rank spends on
  /// its own bytes is part of that share).
  constexpr rounds_cost cost_on_cores(bool waits, double cores) const {
    rounds_cost c = cost(waits);
    const double share = all_bytes_ / cores - byte_seconds(c.critical, *m_);
    if (share > 0) c.seconds += share, c.critical.shared_core += share;
    return c;
  }
  constexpr int busy() const { return busy_; }

private:
  const machine* m_;
  std::size_t elem_size_;
  double seconds_ = -1, unwaited_ = -1, all_bytes_ = 0;
  int busy_ = 0;
  cost_terms critical_, critical_unwaited_;
};

/// Whether a rank that received in round r keeps others waiting on a crowded
/// node: it sends in round r + 1. Only asked when the machine is crowded.
template <class Plan>
constexpr bool forwards_after(const Plan& plan, const round_load& load, int r, const machine& m) {
  if (!(m.ranks_per_core > 1) || load.recvs == 0 || r + 1 >= plan.rounds()) return false;
  bool sends = false;
  plan.round(r + 1, [&](const step& st) { sends = sends || (st.kind == step_kind::send && !st.a.empty()); });
  return sends;
}

/// The full walk: every rank in every round. On a node with fewer than two
/// ranks a core, a rank that forwards waits for a core only where the round
/// it receives in, or the one it sends on in, keeps more ranks busy than the
/// node has cores: the ranks waiting for a message give theirs up. With two
/// or more a core, every forwarding rank waits.
template <class S, class Shape>
constexpr prediction predict_every_rank(const Shape& shape, const machine& m) {
  prediction result;
  result.rounds = plan_for<S>(for_rank(shape, 0)).rounds();
  const double node_cores = std::max(shape.size / std::max(m.ranks_per_core, 1.0), 1.0);
  // 0: every forwarding rank waits.
  const double cores = m.ranks_per_core < 2 ? node_cores : 0;
  const auto cost_of = [&](const slowest_rank& round, bool waits) {
    return m.ranks_per_core > 1 ? round.cost_on_cores(waits, node_cores) : round.cost(waits);
  };
  rounds_cost total;
  slowest_rank previous{m, shape.elem_size};
  for (int r = 0; r < result.rounds; ++r) {
    slowest_rank round{m, shape.elem_size};
    for (int q = 0; q < shape.size; ++q) {
      round_load load;
      const auto plan = plan_for<S>(for_rank(shape, q));
      // A lambda the walk inlines, not a step_sink: O(p) steps a round are common (linear
      // schedules) and an indirect call each made decisions at p = 4096 thirty times slower.
      plan.round(r, [&](const step& st) { load.add(st); });
      round.show(load, forwards_after(plan, load, r, m));
    }
    if (r > 0) total.add(cost_of(previous, previous.busy() > cores || round.busy() > cores));
    previous = round;
  }
  if (result.rounds > 0) total.add(cost_of(previous, true));
  result.seconds = total.seconds;
  result.critical = total.critical;
  return result;
}

/// Above this many ranks the dispatcher takes the shortcuts schedules declare (see predict_sampled).
inline constexpr int sampled_above = 64;

/// The ranks whose position makes them the busiest of some round in the
/// schedules that declare `sampled_cost`, relative to the root: the first and
/// last few, the powers of two and their neighbours (tree and
/// recursive-doubling partners), the edge of the fold of non-powers of two,
/// the tree nodes above the wrap of the root's blocks and the boundaries of
/// the blocks cut at p, these two with their neighbours. Made once a prediction.
struct rank_sample {
  int ranks[512] = {};  // 384 at most, for p up to 2^31
  int count = 0;

  template <class Shape>
  constexpr explicit rank_sample(const Shape& shape) {
    const int p = shape.size;
    int root = 0;
    if constexpr (requires { shape.root; }) root = shape.root;
    const auto add = [&](int v) {
      if (v < 0 || v >= p) return;
      for (int i = 0; i < count; ++i)
        if (ranks[i] == v) return;
      ranks[count++] = v;
    };
    for (int v = 0; v < 4; ++v) add(v), add(p - 1 - v);
    for (long long b = 1; b < p; b *= 2) add(static_cast<int>(b) - 1), add(static_cast<int>(b)), add(static_cast<int>(b) + 1);
    const int rem = p - static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
    for (int v = 2 * rem - 2; v <= 2 * rem + 1; ++v) add(v);
    // Where a root's blocks wrap from rank p − 1 to rank 0, a tree node's
    // subtree is two pieces: the wrap point and its ancestors. Where blocks
    // are cut at p, a group's partner group is smaller. With their
    // neighbours: a rank of a smaller block can be the slowest (an eager
    // message's bytes cost more than a rendezvous one's, machine::eager_copy).
    const int wrap = p - root;
    for (int k = 0; (1LL << k) < p; ++k)
      for (const int point : {(wrap >> k) << k, ((wrap - 1) >> k) << k, ((p - 1) >> k) << k})
        for (int v = point - 1; v <= point + 1; ++v) add(v);
    for (int i = 0; i < count; ++i) ranks[i] = (ranks[i] + root) % p;
  }
};

/// What the plans of the ranks walked in one round stated (cost_hint_sink):
/// the first statement of each kind.
struct stated_hints {
  int period = 0, times = 0;  ///< repeat
  int run = 0;                ///< busiest
  round_load first, growth;
};

/// The cost walk's emitter: counts a rank's steps and load hints, keeps what
/// its plan states of the rounds ahead.
class hint_taker {
public:
  constexpr hint_taker(round_load& load, stated_hints& stated) : load_(&load), stated_(&stated) {}
  constexpr void operator()(const step& st) const { load_->add(st); }
  constexpr void load(const round_load& l) const { *load_ += l; }
  constexpr void repeat(int period, int times) const {
    if (stated_->period == 0 && period > 0 && times > 1) stated_->period = period, stated_->times = times;
  }
  constexpr void busiest(int rounds, const round_load& first, const round_load& growth) const {
    if (stated_->run == 0 && rounds > 0) stated_->run = rounds, stated_->first = first, stated_->growth = growth;
  }

private:
  round_load* load_;
  stated_hints* stated_;
};

/// first + j·growth.
constexpr round_load grown(const round_load& first, const round_load& growth, int j) {
  const auto n = static_cast<std::size_t>(j);
  return {first.sends + j * growth.sends, first.recvs + j * growth.recvs, first.out + n * growth.out,
          first.in + n * growth.in, first.reduced + n * growth.reduced, first.copied + n * growth.copied};
}

/// The cost of rounds j0..j1 (inclusive) of a `busiest` run. Between two rounds
/// of one regime (the same maxima decide — sends or receives, bytes out or in —
/// and every threshold is on the same side), time and terms are linear in j —
/// each maximum of two linear functions switches once at most, each threshold
/// is crossed once — so the sum is the trapezoid's; elsewhere the run is halved.
constexpr rounds_cost busiest_run_cost(const stated_hints& h, int j0, int j1, const machine& m, std::size_t elem_size) {
  const round_load a = grown(h.first, h.growth, j0), b = grown(h.first, h.growth, j1);
  if (j0 < j1 && regime(a, elem_size, m) != regime(b, elem_size, m)) {
    const int mid = j0 + (j1 - j0) / 2;
    rounds_cost sum = busiest_run_cost(h, j0, mid, m, elem_size);
    sum.add(busiest_run_cost(h, mid + 1, j1, m, elem_size));
    return sum;
  }
  slowest_rank at_a{m, elem_size}, at_b{m, elem_size};  // not crowded: see predict_sampled
  at_a.show(a, false), at_b.show(b, false);
  rounds_cost sum = at_a.cost();
  sum.add(at_b.cost());
  const double half_count = (j1 - j0 + 1) / 2.0;
  rounds_cost scaled;
  scaled.add(sum, half_count);
  return scaled;
}

/// The dispatcher's walk: the rounds and ranks the schedule's declarations
/// leave (see predict_sampled).
template <class S, class Shape>
constexpr prediction predict_with_shortcuts(const Shape& shape, const machine& m) {
  const rank_sample sample(shape);
  const auto round_cost = [&](int r, stated_hints& stated) {
    slowest_rank round{m, shape.elem_size};
    const auto walk = [&](int q) {
      round_load load;
      const auto plan = plan_for<S>(for_rank(shape, q));
      if constexpr (gives_cost_hints<S>)
        plan.round(r, hint_taker(load, stated));
      else
        plan.round(r, [&](const step& st) { load.add(st); });
      round.show(load, forwards_after(plan, load, r, m));
      return stated.run > 0;  // the busiest rank's load is known: no other rank can be slower
    };
    if constexpr (samples_ranks<S>) {
      for (int i = 0; i < sample.count; ++i)
        if (walk(sample.ranks[i])) break;
    } else {
      for (int q = 0; q < shape.size; ++q)
        if (walk(q)) break;
    }
    if (stated.run > 0) {  // the ranks walked before the statement need not hold the busiest
      slowest_rank busiest{m, shape.elem_size};
      busiest.show(stated.first, false);
      return busiest.cost();
    }
    return round.cost();
  };
  prediction result;
  result.rounds = plan_for<S>(for_rank(shape, 0)).rounds();
  rounds_cost total;
  for (int r = 0; r < result.rounds;) {
    stated_hints stated;
    const rounds_cost first = round_cost(r, stated);
    if (stated.run > 0) {
      const int run = std::min(stated.run, result.rounds - r);
      total.add(busiest_run_cost(stated, 0, run - 1, m, shape.elem_size));
      r += run;
    } else if (stated.period > 0 && r + stated.period * stated.times <= result.rounds) {
      rounds_cost period = first;
      for (int i = 1; i < stated.period; ++i) {
        stated_hints within;  // the period's own statements repeat this one
        period.add(round_cost(r + i, within));
      }
      total.add(period, stated.times);
      r += stated.period * stated.times;
    } else {
      total.add(first);
      ++r;
    }
  }
  result.seconds = total.seconds;
  result.critical = total.critical;
  return result;
}

/// Whether every block of the call has the same count, as cost hints may take
/// (cost_hint_sink): always, but for gatherv, allgatherv and alltoallv.
template <class Shape>
constexpr bool blocks_alike(const Shape& shape) {
  const auto alike = [](std::span<const std::size_t> counts) {
    return std::adjacent_find(counts.begin(), counts.end(), std::not_equal_to<>()) == counts.end();
  };
  if constexpr (std::same_as<Shape, gatherv_shape> || std::same_as<Shape, allgatherv_shape>)
    return alike(shape.counts);
  else if constexpr (std::same_as<Shape, alltoallv_shape>)
    return alike(shape.send_counts) && alike(shape.recv_counts);
  else
    return true;
}

}  // namespace detail

/// The predicted time of schedule S for the call `shape` (any rank's shape of
/// it) on machine `m`, walking every rank in every round.
template <class S, class Shape>
  requires serves<S, Shape>
constexpr prediction predict(const Shape& shape, const machine& m) {
  return detail::predict_every_rank<S>(shape, m);
}

/// predict() as the dispatcher takes it: above detail::sampled_above ranks
/// (and one rank per core at most), the walk takes the shortcuts schedule S
/// declares (schedule/properties.hpp)
/// — with `sampled_cost` it walks only a sample of about 5 lg p ranks that
/// holds the busiest rank of every round; with `cost_hints` it prices a round
/// of O(p) steps from its load, runs of rounds that cost alike from one
/// period, and runs whose busiest load the plan states without walking them.
/// A gatherv, allgatherv or alltoallv whose counts differ, and a schedule that declares
/// nothing, get predict(). tests/cost_test.cpp compares every candidate with
/// the full walk: equal up to blocks that differ by one element. The full walk
/// of an O(p)-round schedule visits O(p²) (rank, round) pairs: 0.2 s at p = 1024.
template <class S, class Shape>
  requires serves<S, Shape>
constexpr prediction predict_sampled(const Shape& shape, const machine& m) {
  // On a crowded node a round's cost depends on whether a rank sends on in the
  // next round, which neither the sample nor the hints tell: the full walk.
  if constexpr (samples_ranks<S> || gives_cost_hints<S>)
    if (shape.size > detail::sampled_above && detail::blocks_alike(shape) && !(m.ranks_per_core > 1))
      return detail::predict_with_shortcuts<S>(shape, m);
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
///   using S = hpcoll::cheapest<hpcoll::bcast_shape{0, 64, 0, 1 << 20, 1}, hpcoll::machine{.receiver_copies = false},
///                              schedule::binomial, schedule::scatter_ring_allgather>;
///   hpcoll::Bcast<S>{}(c, buffer, 0);
template <auto Shape, machine M, class... Candidates>
  requires(sizeof...(Candidates) > 0)
using cheapest = typename detail::cheapest_of<Shape, M, Candidates...>::type;

}  // namespace hpcoll
