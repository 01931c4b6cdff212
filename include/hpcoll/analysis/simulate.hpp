// SPDX-License-Identifier: BSD-3-Clause
// The network simulator: every rank's plan of one call, run in one process by
// a discrete-event simulation of a LogGP-style network — no MPI, no data.
//
//   hpcoll::simulation s = hpcoll::simulate<schedule::ring>(allgather_shape{0, 1024, 256, false, 4}, machine{});
//
// Where hpcoll::predict (select/cost.hpp) prices a schedule round by round with the
// rounds aligned across ranks (each round costs its slowest rank), the
// simulator lets every rank run its own timeline: a rank starts round r + 1
// as soon as its round r is complete, so ranks with little to do in a round
// run ahead, and a message can reach its receiver before the receive is
// posted. The two agree on symmetric schedules with Hockney parameters and
// differ where ranks run ahead (trees with idle ranks, folds of non-powers of
// two, linear reductions), where ports are contended across rounds, and where
// overheads are not zero. The cost model's protocol step (eager_bytes,
// rendezvous), in-cache rates and crowded cores are not simulated.
//
// The model (all times in seconds, m = the machine):
//   - Every rank starts round 0 at time 0. A round runs the plan's semantics
//     (plan/plan.hpp): its receives are posted at the round's start; its local steps
//     (copy: m.copy per byte; reduce: m.gamma per byte) run in order on the
//     rank's CPU; then its sends are posted in order; the round is complete
//     when all its sends have left the rank and all its receives have
//     completed; then the reductions of its recv_reduce steps run
//     (m.gamma per byte), and the next round starts.
//   - A send costs the sender's CPU m.overhead (o), then waits for the rank's
//     injection port, which it holds for bytes·β. After a message the port
//     stays idle for m.gap (g) before the next one: consecutive sends of a
//     rank are at least g apart. The send is complete when its last byte has
//     been injected (every message is eager: nothing waits for the receiver).
//   - The first byte reaches the receiver L = max(0, α − 2o) after injection
//     began. The receiver's ejection port takes messages in arrival order and
//     holds each for bytes·β (cut through: it overlaps the injection); it has
//     no gap — a receiver pays per message through its overhead o. One
//     isolated message of n bytes thus costs o + L + nβ + o = α + nβ end to
//     end, and with g = α and o = 0 a rank sending k messages of n bytes costs
//     k(α + nβ): Hockney's model. k messages arriving together cost their
//     receiver α + k·nβ (plus k·o), where the cost model charges α + (k−1)g +
//     k·nβ.
//   - A message matches the receives its receiver posted for its sender in
//     posting order (MPI's non-overtaking rule; a call is one tag). A receive
//     completes once its message has been ejected and the receive is posted,
//     plus the receiver's CPU overhead o; a rank's receive overheads are
//     serialised on its CPU after its sends' overheads. A message that
//     arrives before its receive is posted waits at no extra cost (counted in
//     simulation::unexpected).
//   - Contention is modelled at the ranks only: each rank has one injection
//     and one ejection port (full duplex); the network between them has no
//     capacity limit, no topology and no flow control.
//   - On nodes (simulate with a node_layout), a message between two nodes pays
//     m.inter_alpha and m.inter_beta at its ranks' ports and holds its sender
//     node's injection port and its receiver node's ejection port for
//     bytes·m.port_beta each: a node's ranks take their port in turn.
// Not modelled: rendezvous protocols (large messages in MPI libraries wait for
// the receive to be posted, which limits how far ranks run ahead), the copy
// out of an unexpected-message buffer, memory bandwidth shared by local steps
// and transfers.
//
// Cost: one simulation builds each rank's plan once per round and processes
// each message once (a heap of at most p pending senders, O(log p) per
// message). Storage is per rank plus what is in flight: the posted receives
// and queued sends of the ranks' current rounds. Schedules with O(p) rounds or
// O(p) messages per rank do O(p²) work: see docs/simulator.md for run times.
// A plan whose receives can never be matched raises hpcoll::error (deadlock),
// as do messages no receive matches, size mismatches, bad peers and round
// counts that differ between ranks.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "../error.hpp"
#include "../plan/machine.hpp"
#include "../plan/plan.hpp"
#include "../plan/plan_for.hpp"
#include "../plan/shape.hpp"
#include "../plan/topology.hpp"
#include "../schedule/properties.hpp"

namespace hpcoll {

/// What one simulated call did and how long it took.
struct simulation {
  double seconds = 0;        ///< when the last rank finished (every rank starts at 0)
  double earliest = 0;       ///< when the first rank finished
  int last_rank = 0;         ///< the rank that finished last (the lowest of ties)
  int rounds = 0;            ///< rounds of the plans
  std::size_t messages = 0;  ///< non-empty point-to-point messages
  std::size_t bytes = 0;     ///< bytes those messages carried
  std::size_t reduced = 0;   ///< bytes combined by reductions, over all ranks
  std::size_t copied = 0;    ///< bytes copied locally, over all ranks
  std::size_t unexpected = 0;  ///< messages that were ejected before their receive was posted
};

namespace detail {


/// One growable array per rank, all carved out of a single vector: a rank
/// that outgrows its slice moves to a slice twice as large at the end (the
/// old one is abandoned), so p ranks cost a handful of allocations, not p.
/// Items [head, size) of a slice are live (head > 0 only for queues).
template <class T>
class rank_slices {
public:
  explicit rank_slices(int p)
      : first_(static_cast<std::size_t>(p), 0), head_(static_cast<std::size_t>(p), 0),
        size_(static_cast<std::size_t>(p), 0), cap_(static_cast<std::size_t>(p), 0) {}

  T* begin(int q) { return data_.data() + first_[idx(q)] + head_[idx(q)]; }
  T* end(int q) { return data_.data() + first_[idx(q)] + size_[idx(q)]; }
  std::size_t count(int q) const { return size_[idx(q)] - head_[idx(q)]; }
  bool empty(int q) const { return count(q) == 0; }
  T& front(int q) { return *begin(q); }
  void clear(int q) { head_[idx(q)] = size_[idx(q)] = 0; }
  void push(int q, const T& v) {
    if (size_[idx(q)] == cap_[idx(q)]) grow(q);
    data_[first_[idx(q)] + size_[idx(q)]++] = v;
  }
  void pop_front(int q) {
    if (++head_[idx(q)] == size_[idx(q)]) clear(q);
  }
  /// Keeps the live items for which keep(item) holds, in order.
  template <class Keep>
  void filter(int q, Keep keep) {
    T* const base = data_.data() + first_[idx(q)];
    T* out = base;
    for (T* it = begin(q); it != end(q); ++it)
      if (keep(*it)) *out++ = std::move(*it);
    head_[idx(q)] = 0;
    size_[idx(q)] = static_cast<std::size_t>(out - base);
  }

private:
  static std::size_t idx(int q) { return static_cast<std::size_t>(q); }
  void grow(int q) {
    const std::size_t live = count(q);
    const std::size_t cap = std::max<std::size_t>(4, 2 * live);
    if (live < cap_[idx(q)] / 2) {  // mostly popped: slide down instead
      std::move(begin(q), end(q), data_.data() + first_[idx(q)]);
    } else {
      const std::size_t at = data_.size();
      data_.resize(at + cap);
      std::move(begin(q), end(q), data_.data() + at);
      first_[idx(q)] = at;
      cap_[idx(q)] = cap;
    }
    head_[idx(q)] = 0;
    size_[idx(q)] = live;
  }

  std::vector<T> data_;
  std::vector<std::size_t> first_, head_, size_, cap_;
};

/// The first of the items [first, last) (sorted by their rank `src`) whose
/// src is not below `src`: a guess from the density of ranks 0..p-1, then a
/// galloping search around it — O(1) for the dense lists of linear schedules,
/// where a plain binary search missed the cache at every step.
template <class T>
T* first_from(T* first, T* last, int src, int p) {
  const auto below = [](const T& x, int s) { return x.src < s; };
  const std::ptrdiff_t n = last - first;
  if (n <= 8) return std::lower_bound(first, last, src, below);
  const std::ptrdiff_t g =
      std::min<std::ptrdiff_t>(n - 1, static_cast<std::ptrdiff_t>(static_cast<double>(src) / p * static_cast<double>(n)));
  std::ptrdiff_t step = 1;
  if (first[g].src < src) {  // in (g, n]
    std::ptrdiff_t lo = g + 1, hi = g + 1;
    while (hi < n && first[hi].src < src) {
      lo = hi + 1;
      step *= 2;
      hi = g + step;
    }
    return std::lower_bound(first + lo, first + std::min(hi, n), src, below);
  }
  std::ptrdiff_t hi = g, lo = g - 1;  // in [0, g]
  while (lo >= 0 && first[lo].src >= src) {
    hi = lo;
    step *= 2;
    lo = g - step;
  }
  return std::lower_bound(first + std::max<std::ptrdiff_t>(lo + 1, 0), first + hi, src, below);
}

/// The discrete-event simulation of one call (see the file comment).
template <class S, class Shape>
class simulator {
public:
  simulator(const Shape& shape, const machine& m, const node_layout* nodes = nullptr)
      : shape_(shape), m_(m), nodes_(nodes), p_(shape.size), latency_(std::max(0.0, m.alpha - 2 * m.overhead)),
        across_latency_(std::max(0.0, m.inter_alpha - 2 * m.overhead)), posted_(shape.size), early_(shape.size),
        outbox_(shape.size) {
    if (nodes && nodes->size() != shape.size)
      fail("the node layout has ", nodes->size(), " ranks, the call ", shape.size);
    if (nodes) {
      port_inject_free_.assign(static_cast<std::size_t>(nodes->nodes()), 0);
      port_eject_free_.assign(static_cast<std::size_t>(nodes->nodes()), 0);
    }
    const auto n = static_cast<std::size_t>(p_);
    round_.assign(n, 0);
    pending_.assign(n, 0);
    start_.assign(n, 0);
    rcpu_.assign(n, 0);
    sent_.assign(n, 0);
    after_.assign(n, 0);
    inject_free_.assign(n, 0);
    eject_free_.assign(n, 0);
    finish_.assign(n, 0);
    heap_.reserve(n);
  }

  simulation run() {
    if (p_ < 1) fail("the communicator size must be at least 1");
    rounds_ = plan_for<S>(for_rank(shape_, 0)).rounds();
    for (int q = 1; q < p_; ++q)
      if (const int r = plan_for<S>(for_rank(shape_, q)).rounds(); r != rounds_)
        fail("rank ", q, " has ", r, " rounds, rank 0 has ", rounds_);
    for (int q = 0; q < p_; ++q) advance(q, 0.0);
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      const int src = heap_.back().rank;
      heap_.pop_back();
      const outgoing msg = outbox_.front(src);
      outbox_.pop_front(src);
      if (!outbox_.empty(src)) schedule(src);
      deliver(src, msg);
    }
    for (int q = 0; q < p_; ++q)
      if (round_[idx(q)] < rounds_) report_deadlock();
    for (int q = 0; q < p_; ++q)
      if (!early_.empty(q)) {
        const arrived& a = early_.front(q);
        fail("rank ", a.src, " sends ", a.elems, " elements to rank ", q, " in round ", a.round,
             " that no receive matches");
      }
    result_.rounds = rounds_;
    result_.seconds = finish_[0];
    result_.earliest = finish_[0];
    for (int q = 1; q < p_; ++q) {
      if (finish_[idx(q)] > result_.seconds) result_.seconds = finish_[idx(q)], result_.last_rank = q;
      result_.earliest = std::min(result_.earliest, finish_[idx(q)]);
    }
    return result_;
  }

private:
  struct posted {  ///< a receive of a rank's current round
    int src;
    int order;  ///< position among the round's receives; -1 once matched
    std::size_t elems;
  };
  struct arrived {  ///< a message ejected before its receive was posted
    int src;
    int round;  ///< the sender's round (for errors)
    std::uint64_t seq;
    double end;
    std::size_t elems;
  };
  struct outgoing {  ///< a message injected (or queued for injection) by its sender
    int dst;
    int round;
    std::uint64_t seq;
    double arrival;  ///< when its first byte reaches the receiver
    std::size_t elems;
    bool across;  ///< between two nodes
  };
  struct event {  ///< a sender whose oldest message arrives at `time`
    double time;
    std::uint64_t seq;
    int rank;
  };
  struct send_step {
    int peer;
    std::size_t elems;
  };

  static std::size_t idx(int q) { return static_cast<std::size_t>(q); }
  static bool later(const event& a, const event& b) { return a.time > b.time || (a.time == b.time && a.seq > b.seq); }
  double bytes(std::size_t elems) const { return static_cast<double>(elems) * static_cast<double>(shape_.elem_size); }
  std::size_t byte_count(std::size_t elems) const { return elems * shape_.elem_size; }

  template <class... Parts>
  [[noreturn]] void fail(const Parts&... parts) const {
    std::ostringstream o;
    o << "simulation on " << p_ << " ranks: ";
    (o << ... << parts);
    throw error(Shape::name, schedule_name<S>(), o.str());
  }

  void check_peer(int q, int r, int peer) const {
    if (peer < 0 || peer >= p_) fail("rank ", q, " round ", r, ": peer ", peer, " is not a rank");
    if (peer == q) fail("rank ", q, " round ", r, ": sends a message to itself");
  }

  /// Puts sender `q` on the heap at its oldest queued message's arrival.
  void schedule(int q) {
    const outgoing& o = outbox_.front(q);
    heap_.push_back({o.arrival, o.seq, q});
    std::push_heap(heap_.begin(), heap_.end(), later);
  }

  /// Starts round round_[q] of rank q at time t, and every following round
  /// that needs no message from elsewhere.
  void advance(int q, double t) {
    const std::size_t i = idx(q);
    while (true) {
      if (round_[i] >= rounds_) {
        finish_[i] = t;
        return;
      }
      const int r = round_[i];
      start_[i] = t;
      double local = 0, after = 0;
      int order = 0;
      sends_.clear();
      posted_.clear(q);
      const auto plan = plan_for<S>(for_rank(shape_, q));
      plan.round(r, [&](const step& s) {
        switch (s.kind) {
          case step_kind::send:
            if (s.a.empty()) break;
            check_peer(q, r, s.peer);
            sends_.push_back({s.peer, s.a.count});
            break;
          case step_kind::recv:
            if (s.dst.empty()) break;
            check_peer(q, r, s.peer);
            posted_.push(q, {s.peer, order++, s.dst.count});
            break;
          case step_kind::recv_reduce:
            if (s.a.empty()) break;
            check_peer(q, r, s.peer);
            posted_.push(q, {s.peer, order++, s.a.count});
            after += bytes(s.a.count) * m_.gamma;
            result_.reduced += byte_count(s.a.count);
            break;
          case step_kind::copy:
            if (s.dst.empty() || s.a == s.dst) break;
            local += bytes(s.dst.count) * m_.copy;
            result_.copied += byte_count(s.dst.count);
            break;
          case step_kind::reduce:
            local += bytes(s.dst.count) * m_.gamma;
            result_.reduced += byte_count(s.dst.count);
            break;
        }
      });

      // Local steps, then the sends in order.
      double cpu = t + local;
      double sent = cpu;
      for (const send_step& s : sends_) {
        cpu += m_.overhead;
        const bool across = nodes_ && nodes_->node_of(s.peer) != nodes_->node_of(q);
        double inject = std::max(cpu, inject_free_[i]);
        double done = inject + bytes(s.elems) * m_.beta;
        if (across) {
          double& port = port_inject_free_[static_cast<std::size_t>(nodes_->node_of(q))];
          inject = std::max(inject, port);
          port = inject + bytes(s.elems) * m_.port_beta;
          done = std::max(port, inject + bytes(s.elems) * m_.inter_beta);
        }
        inject_free_[i] = done + m_.gap;
        sent = std::max(sent, done);
        const bool idle = outbox_.empty(q);
        outbox_.push(q, {s.peer, r, seq_++, inject + (across ? across_latency_ : latency_), s.elems, across});
        if (idle) schedule(q);
        ++result_.messages;
        result_.bytes += byte_count(s.elems);
      }

      // Receives whose messages are already here.
      double rcpu = cpu;
      if (!early_.empty(q) && !posted_.empty(q)) rcpu = match_early(q, r, t, rcpu);
      std::sort(posted_.begin(q), posted_.end(q),
                [](const posted& a, const posted& b) { return a.src < b.src || (a.src == b.src && a.order < b.order); });
      pending_[i] = static_cast<int>(posted_.count(q));
      rcpu_[i] = rcpu;
      sent_[i] = sent;
      after_[i] = after;
      if (pending_[i] > 0) return;
      t = std::max(rcpu, sent) + after;
      ++round_[i];
    }
  }

  /// Matches rank q's freshly posted receives (round r, posted at t) with the
  /// messages that arrived before: per sender, oldest message with first
  /// receive. Returns the rank's CPU time after their receive overheads.
  double match_early(int q, int r, double t, double rcpu) {
    std::sort(early_.begin(q), early_.end(q),
              [](const arrived& a, const arrived& b) { return a.src < b.src || (a.src == b.src && a.seq < b.seq); });
    ready_.clear();
    arrived* const first = early_.begin(q);
    arrived* const last = early_.end(q);
    for (posted* it = posted_.begin(q); it != posted_.end(q); ++it) {
      arrived* a = first_from(first, last, it->src, p_);
      while (a != last && a->src == it->src && a->round < 0) ++a;
      if (a == last || a->src != it->src) continue;
      check_size(a->src, q, r, a->elems, it->elems);
      if (a->end < t) ++result_.unexpected;
      ready_.push_back(std::max(a->end, t));
      a->round = -1;  // consumed
      it->order = -1;
    }
    early_.filter(q, [](const arrived& a) { return a.round >= 0; });
    posted_.filter(q, [](const posted& x) { return x.order >= 0; });
    std::sort(ready_.begin(), ready_.end());
    for (double ready : ready_) rcpu = std::max(rcpu, ready) + m_.overhead;
    return rcpu;
  }

  void check_size(int src, int dst, int r, std::size_t sent, std::size_t expected) const {
    if (sent != expected)
      fail("rank ", dst, " round ", r, " receives ", expected, " elements from rank ", src, ", which sends ", sent);
  }

  /// The first byte of `msg` from `src` reaches its receiver.
  void deliver(int src, const outgoing& msg) {
    const int d = msg.dst;
    const std::size_t i = idx(d);
    double begin = std::max(msg.arrival, eject_free_[i]);
    double end = begin + bytes(msg.elems) * m_.beta;
    if (msg.across) {
      double& port = port_eject_free_[static_cast<std::size_t>(nodes_->node_of(d))];
      begin = std::max(begin, port);
      port = begin + bytes(msg.elems) * m_.port_beta;
      end = std::max(port, begin + bytes(msg.elems) * m_.inter_beta);
    }
    eject_free_[i] = end;
    posted* const first = posted_.begin(d);
    posted* const last = posted_.end(d);
    posted* it = first_from(first, last, src, p_);
    while (it != last && it->src == src && it->order < 0) ++it;
    if (it == last || it->src != src) {  // not posted yet: wait for the receiver's round
      early_.push(d, {src, msg.round, msg.seq, end, msg.elems});
      return;
    }
    check_size(src, d, round_[i], msg.elems, it->elems);
    it->order = -1;
    if (end < start_[i]) ++result_.unexpected;
    rcpu_[i] = std::max(rcpu_[i], std::max(end, start_[i])) + m_.overhead;
    if (--pending_[i] > 0) return;
    ++round_[i];
    advance(d, std::max(rcpu_[i], sent_[i]) + after_[i]);
  }

  [[noreturn]] void report_deadlock() {
    int stuck = 0, first = -1;
    for (int q = 0; q < p_; ++q)
      if (round_[idx(q)] < rounds_) {
        ++stuck;
        if (first < 0) first = q;
      }
    int from = -1;
    for (posted* it = posted_.begin(first); it != posted_.end(first); ++it)
      if (it->order >= 0) {
        from = it->src;
        break;
      }
    fail("deadlock: rank ", first, " waits in round ", round_[idx(first)], " for a message from rank ", from,
         " that is never sent (", stuck, " of ", p_, " ranks never finish)");
  }

  Shape shape_;
  machine m_;
  const node_layout* nodes_;  ///< null: one node
  int p_;
  int rounds_ = 0;
  double latency_, across_latency_;
  std::uint64_t seq_ = 0;
  simulation result_;

  std::vector<int> round_, pending_;
  std::vector<double> start_;        ///< when the current round started (its receives were posted)
  std::vector<double> rcpu_;         ///< CPU time after the current round's sends and receive overheads so far
  std::vector<double> sent_;         ///< when the current round's sends are all injected
  std::vector<double> after_;        ///< the current round's recv_reduce reductions
  std::vector<double> inject_free_;  ///< when the injection port takes the next message
  std::vector<double> eject_free_;   ///< when the ejection port takes the next message
  std::vector<double> finish_;
  std::vector<double> port_inject_free_, port_eject_free_;  ///< per node: when its network port takes the next message
  rank_slices<posted> posted_;
  rank_slices<arrived> early_;
  rank_slices<outgoing> outbox_;
  std::vector<event> heap_;
  std::vector<send_step> sends_;
  std::vector<double> ready_;
};

}  // namespace detail

/// Simulates the call `shape` (any rank's shape of it) with schedule S on
/// machine `m`: every rank's plan, one discrete-event timeline per rank (see
/// the top of this file for the model). Throws hpcoll::error when the plans
/// deadlock or do not match.
template <class S, class Shape>
  requires serves<S, Shape>
simulation simulate(const Shape& shape, const machine& m = {}) {
  return detail::simulator<S, Shape>(shape, m).run();
}

/// simulate() on the nodes of `nodes` (node-aware schedules plan with them): a message between two nodes costs
/// m.inter_alpha and m.inter_beta per byte at its two ranks' ports instead of
/// α and β, and also holds its sender node's and its receiver node's network
/// ports, m.port_beta per byte each, one message at a time (a port serves the
/// messages of the node's ranks in turn; see docs/hierarchy.md).
template <class S, class Shape>
  requires serves<S, Shape>
simulation simulate(const Shape& shape, const machine& m, const node_layout& nodes) {
  Shape call = shape;
  if constexpr (requires { call.nodes; }) call.nodes = nodes;  // node-aware schedules plan with it
  return detail::simulator<S, Shape>(call, m, &nodes).run();
}

}  // namespace hpcoll
