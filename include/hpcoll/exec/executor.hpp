// SPDX-License-Identifier: BSD-3-Clause
// The blocking MPI executor: runs a plan round by round with point-to-point
// messages (nonblocking, or the blocking calls for a round of one exchange),
// small ones between ranks of a node through shared memory (node_mailboxes.hpp).
#pragma once

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <exception>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../datatype.hpp"
#include "../environment.hpp"
#include "../mpi_call.hpp"
#include "../plan/plan.hpp"
#include "arena.hpp"
#include "copy_kernel.hpp"
#include "node_mailboxes.hpp"
#include "reduce_kernel.hpp"

namespace hpcoll::detail {

/// max_message_bytes() in elements of T: at least one, at most INT_MAX.
template <class T>
[[gnu::always_inline]] inline std::size_t max_message_elems() {
  static const std::size_t limit = [] {
    const std::size_t n = max_message_bytes() / sizeof(T);
    return n == 0 ? 1 : (n > static_cast<std::size_t>(INT_MAX) ? static_cast<std::size_t>(INT_MAX) : n);
  }();
  return limit;
}

/// The op of the collectives that move data without combining it: their
/// plans contain no reduction steps, so it is never called.
struct no_op {
  template <class T>
  constexpr const T& operator()(const T& a, const T&) const noexcept {
    return a;
  }
};

/// The three buffers a plan names, resolved to memory (indexed by the
/// buffer's number: a region's address is one load and one add).
template <class T>
class buffers {
public:
  buffers() = default;
  buffers(const T* input, T* output, T* scratch) noexcept
      : base_{const_cast<T*>(input), output, scratch} {}  // plans never write input

  [[gnu::always_inline]] T* at(const region& r) const { return base_[static_cast<std::size_t>(r.buf)] + r.offset; }

private:
  static_assert(static_cast<int>(buffer::input) == 0 && static_cast<int>(buffer::output) == 1 &&
                static_cast<int>(buffer::scratch) == 2);
  T* base_[3] = {};
};

/// What the blocking executor needs to know of a round's steps, found in one
/// scan (or once for a recorded plan, exec/recorded_plan.hpp).
struct round_summary {
  const step* send = nullptr;       ///< the round's send, when it has one and exchanges
  const step* recv = nullptr;       ///< the round's receive, when it has one and exchanges
  const region* landing = nullptr;  ///< where `recv` lands
  std::size_t out = 0, in = 0;      ///< elements `send` sends and `recv` receives
  bool exchanges = true;            ///< at most one send and one receive
  bool local = false;               ///< copy or reduce steps
  bool reduces = false;             ///< recv_reduce steps
  /// Leading local steps that run before any of the round's messages is
  /// posted: a round of local steps only, merged into the round after it by
  /// a recorded plan (exec/recorded_plan.hpp).
  std::size_t prelude = 0;

  static round_summary of(std::span<const step> steps, std::size_t prelude = 0) {
    round_summary r;
    r.prelude = prelude;
    for (const step& s : steps) {
      switch (s.kind) {
        case step_kind::send:
          r.exchanges = r.exchanges && !r.send;
          r.send = &s;
          r.out = s.a.count;
          break;
        case step_kind::recv_reduce:
          r.reduces = true;
          [[fallthrough]];
        case step_kind::recv:
          r.exchanges = r.exchanges && !r.recv;
          r.recv = &s;
          r.landing = &s.landing();
          r.in = r.landing->count;
          break;
        case step_kind::copy:
        case step_kind::reduce:
          r.local = true;
          break;
      }
    }
    return r;
  }
};

/// After a failure: cancels and frees the messages still pending, so that
/// none of them lands later in a buffer its caller has given back.
inline void abandon(std::span<MPI_Request> requests) noexcept {
  for (MPI_Request& r : requests)
    if (r != MPI_REQUEST_NULL) {
      MPI_Cancel(&r);
      MPI_Request_free(&r);
    }
}

/// What a rank raises when a peer's notice (round_runner) tells it that its
/// result depends on a failure elsewhere: on the peer, or on a rank the peer
/// depends on (a notice carries no more than that).
inline error peer_failure(int peer) {
  return error("", "", concat({"rank ", std::to_string(peer),
                               " could not deliver its part of this call (a failure there or on a rank it depends on, "
                               "raised where it happened); this rank's result depends on it"}));
}

/// Runs a plan's rounds with the round semantics of plan.hpp on one rank's
/// buffers. The blocking executor and the nonblocking operations
/// (exec/operation.hpp) share it: they differ only in how they wait for a
/// round's messages. `steps` and `requests` are the caller's working storage,
/// kept between begin() and finish() of a round (which a nonblocking
/// operation may call on two runners made over the same storage).
///
/// Failures, when the caller gives keep_failures() a place for them: an op
/// that throws (the op is the caller's), an MPI call that fails, or a peer's
/// notice end this rank's part of the call, not its rounds. Every message of
/// the call is still sent and received, so no peer waits for a message that
/// never comes and none is left unreceived to meet a later call; but once
/// failed, the rank reduces no more and sends notices, empty messages, in
/// place of its data. A message is never empty otherwise (an empty region is
/// no message), so a notice where data was due makes the receiving rank fail
/// too: exactly the ranks whose results depend on a failure raise, each
/// naming the first it met. The first failure is raised when the rounds end
/// (run, advance, raise_failure). Without that place a failure is raised at
/// once, the round's pending messages cancelled.
template <class T, class Op>
class round_runner {
public:
  round_runner(MPI_Comm comm, int tag, const buffers<T>& mem, const Op& op, std::vector<step>& steps,
               std::vector<MPI_Request>& requests)
      : round_runner(comm, tag, mem, op, requests) {
    steps_ = &steps;
    round_ = steps;
  }
  /// A runner of rounds whose steps the caller has at hand (run_round only).
  [[gnu::always_inline]] round_runner(MPI_Comm comm, int tag, const buffers<T>& mem, const Op& op,
                                      std::vector<MPI_Request>& requests)
      : comm_(comm), tag_(tag), type_(datatype_of<T>()), chunk_(max_message_elems<T>()), mem_(mem), op_(op),
        requests_(requests) {}

  /// Round r up to its wait: post the receives, run the local steps, post the sends.
  template <class Plan>
  void begin(const Plan& plan, int r) {
    steps_->clear();
    requests_.clear();
    plan.round(r, step_sink(*steps_, step_sink::empty_steps::skip));
    round_ = *steps_;
    post_round();
  }

  /// After the round's messages are done: the reductions of its recv_reduce steps.
  void finish() {
    for (const step& s : round_) {
      if (s.kind != step_kind::recv_reduce) continue;
      const T* incoming = mem_.at(s.a);
      const T* other = mem_.at(s.b);
      if (s.incoming_left)
        reduce(mem_.at(s.dst), incoming, other, s.dst.count);
      else
        reduce(mem_.at(s.dst), other, incoming, s.dst.count);
    }
  }

  /// Where the call's first failure waits for the end of the rounds, and
  /// where MPI reports the round's messages (notices are read from them).
  [[gnu::always_inline]] round_runner& keep_failures(std::exception_ptr& slot,
                                                     std::vector<MPI_Status>& statuses) noexcept {
    failure_ = &slot;
    statuses_ = &statuses;
    return *this;
  }
  /// Raises (once) the first failure of the rounds run so far.
  [[gnu::always_inline]] void raise_failure() const {
    if (failure_ && *failure_) std::rethrow_exception(std::exchange(*failure_, nullptr));
  }

  /// Blocking runs: the messages `boxes` carries (small ones within the node)
  /// go through shared memory; null: every message through MPI.
  [[gnu::always_inline]] round_runner& through(node_mailboxes* boxes) noexcept {
    boxes_ = boxes;
    return *this;
  }

  /// Rounds [first, rounds) to the end, blocking (see run_round).
  template <class Plan>
  void run(const Plan& plan, int first = 0) {
    const int rounds = plan.rounds();
    for (int r = first; r < rounds; ++r) {
      steps_->clear();
      plan.round(r, step_sink(*steps_, step_sink::empty_steps::skip));
      run_round(*steps_, round_summary::of(*steps_));
    }
    raise_failure();
  }

  /// One round, blocking: a round of at most one send and one receive of one
  /// message each in the blocking calls (exchange), any other round posted
  /// and finished in MPI_Waitall. `summary` describes `steps`. A failure
  /// raised from here leaves no message of the round pending. Out of line:
  /// inlined into every replay, it doubled the compile time of a test that
  /// instantiates many element types, for calls no faster overall.
  [[gnu::noinline]] void run_round(std::span<const step> steps, const round_summary& summary) {
    round_ = steps;
    if (!summary.exchanges || !exchange(summary)) post_and_wait(summary.prelude);
    if (summary.reduces) finish();
  }

  /// After a failure: the current round's pending messages cancelled and freed.
  void abandon_round() noexcept {
    abandon(requests_);
    requests_.clear();
  }

  /// Posts the messages of the first round and returns at once, so the caller
  /// goes back to its own work; true when the plan has no rounds at all.
  template <class Plan>
  bool post_first(const Plan& plan, bool& posted) {
    if (plan.rounds() == 0) return true;
    begin(plan, 0);
    posted = true;
    return false;
  }

  /// Advances without blocking from `round` (whose messages are already posted
  /// when `posted`): tests the round's messages and starts the next round as
  /// soon as they are done. Returns true once every round is finished.
  template <class Plan>
  bool advance(const Plan& plan, int& round, bool& posted) {
    const int rounds = plan.rounds();
    while (round < rounds) {
      if (!posted) {
        begin(plan, round);
        posted = true;
      }
      if (!requests_.empty() && !round_done()) return false;
      finish();
      posted = false;
      ++round;
    }
    raise_failure();
    return true;
  }

private:
  static bool receives(const step& s) { return s.kind == step_kind::recv || s.kind == step_kind::recv_reduce; }

  /// The current round's messages posted and completed in MPI_Waitall,
  /// after its first `prelude` steps (local ones) have run.
  [[gnu::noinline]] void post_and_wait(std::size_t prelude) {
    if (prelude) {
      run_local_steps(round_.first(prelude));
      round_ = round_.subspan(prelude);
    }
    requests_.clear();
    try {
      if (boxes_)
        post_and_wait_shared();
      else
        post_round();
      wait_round();
    } catch (...) {
      abandon_round();
      throw;
    }
  }

  /// Whether step s's message goes through shared memory.
  bool shared(const step& s) const {
    const region& r = s.kind == step_kind::send ? s.a : s.landing();
    return boxes_->carries(s.peer, r.count * sizeof(T));
  }

  /// post_round where some messages go through shared memory: those are
  /// done here (the MPI ones are left to wait_round). A message whose ring
  /// or data is not ready waits in a list that is retried in step order, the
  /// MPI library's progress made meanwhile, so no peer waits on this rank.
  void post_and_wait_shared() {
    auto& pending = boxes_->pending;
    pending.clear();
    for (const step& s : round_)
      if (receives(s)) {
        if (shared(s))
          pending.push_back({&s, false});
        else
          post(s, false);
      }
    run_local_steps(round_);
    bool stalled = false;  // a send waits: those after it wait too, to keep each pair's order
    for (const step& s : round_)
      if (s.kind == step_kind::send) {
        if (!shared(s))
          post(s, true);
        else if (stalled || !try_shared(s, true)) {
          stalled = true;
          pending.push_back({&s, true});
        }
      }
    std::size_t left = pending.size();
    if (!left) return;
    spin_wait pause = boxes_->waiter();
    while (true) {
      for (std::size_t i = 0; i < pending.size(); ++i) {
        auto& m = pending[i];
        if (!m.s || waits_behind(pending, i) || !try_shared(*m.s, m.is_send)) continue;
        m.s = nullptr;
        if (--left == 0) return;
      }
      pause();
    }
  }

  /// Whether an earlier message of the same pair and direction is still pending.
  static bool waits_behind(std::span<const node_mailboxes::pending_message> pending, std::size_t i) {
    for (std::size_t j = 0; j < i; ++j)
      if (pending[j].s && pending[j].is_send == pending[i].is_send && pending[j].s->peer == pending[i].s->peer)
        return true;
    return false;
  }

  /// One attempt at a message through shared memory; a notice in place of
  /// data once the call has failed, and a notice received recorded.
  bool try_shared(const step& s, bool is_send) {
    if (is_send) {
      const std::size_t bytes = failed() ? 0 : s.a.count * sizeof(T);
      return boxes_->try_send(s.peer, mem_.at(s.a), bytes);
    }
    const region& landing = s.landing();
    std::size_t received = 0;
    const std::size_t bytes = landing.count * sizeof(T);
    if (!boxes_->try_receive(s.peer, mem_.at(landing), bytes, received)) return false;
    if (received != bytes) [[unlikely]]
      received_other(s.peer, received, bytes);
    return true;
  }

  /// A message through shared memory of another size than due: a peer's
  /// notice (nothing), or counts that disagree between the ranks.
  [[gnu::cold, gnu::noinline]] void received_other(int peer, std::size_t received, std::size_t due) {
    if (received == 0) {
      if (!failure_) throw peer_failure(peer);
      return record_peer_failure(peer);
    }
    error mismatch("", "", concat({"rank ", std::to_string(peer), " sent ", std::to_string(received),
                                   " bytes where this rank receives ", std::to_string(due),
                                   ": the ranks' counts disagree"}));
    if (!failure_) throw mismatch;
    if (!*failure_) *failure_ = std::make_exception_ptr(mismatch);
  }

  void post_round() {
    for (const step& s : round_)
      if (receives(s)) post(s, false);
    run_local_steps(round_);
    for (const step& s : round_)
      if (s.kind == step_kind::send) post(s, true);
  }

  void run_local_steps(std::span<const step> steps) {
    for (const step& s : steps) {
      if (s.kind == step_kind::copy) {
        T* to = mem_.at(s.dst);
        const T* from = mem_.at(s.a);
        if (to != from && s.dst.count) copy_bytes(static_cast<void*>(to), from, s.dst.count * sizeof(T));
      } else if (s.kind == step_kind::reduce) {
        reduce(mem_.at(s.dst), mem_.at(s.a), mem_.at(s.b), s.dst.count);
      }
    }
  }

  void reduce(T* dst, const T* left, const T* right, std::size_t n) {
    if (!failure_) return combine(dst, left, right, n, op_);
    if (*failure_) return;  // the call has failed: its results are void
    try {
      combine(dst, left, right, n, op_);
    } catch (...) {
      *failure_ = std::current_exception();
    }
  }

  /// Whether the call has failed on this rank (under keep_failures).
  bool failed() const { return failure_ && *failure_; }

  /// An MPI routine that failed: raised at once without keep_failures (the
  /// caller then leaves no message pending), else kept if it is the first.
  [[gnu::cold, gnu::noinline]] void mpi_call_failed(int code, const char* routine) {
    if (!failure_) throw mpi_failure(code, routine);
    if (!*failure_) *failure_ = std::make_exception_ptr(mpi_failure(code, routine));
  }
  /// A peer's notice: kept if it is the first failure.
  [[gnu::cold, gnu::noinline]] void record_peer_failure(int peer) {
    if (!*failure_) *failure_ = std::make_exception_ptr(peer_failure(peer));
  }

  /// Where MPI reports the round's statuses: nowhere without keep_failures.
  MPI_Status* round_statuses() {
    if (!failure_) return MPI_STATUSES_IGNORE;
    statuses_->resize(requests_.size());
    return statuses_->data();
  }

  /// The round's posted messages, completed.
  void wait_round() {
    if (requests_.empty()) return;
    const int code = MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), round_statuses());
    if (code != MPI_SUCCESS) [[unlikely]]
      return settle_after(code, "MPI_Waitall");
    if (failure_) read_notices();
  }

  /// Whether the round's posted messages have completed, without blocking.
  bool round_done() {
    int done = 0;
    const int code = MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, round_statuses());
    if (code != MPI_SUCCESS) [[unlikely]] {
      settle_after(code, "MPI_Testall");
      return true;
    }
    if (done && failure_) read_notices();
    return done != 0;
  }

  /// After MPI_Waitall or MPI_Testall failed: the failure kept, and the
  /// round's messages settled. MPI_ERR_IN_STATUS marks those still pending
  /// (MPI_ERR_PENDING): they are waited for one by one (blocking, even in
  /// advance), so none lands later in a buffer given back; after any other
  /// error MPI says nothing of the requests: they are cancelled and freed.
  [[gnu::cold, gnu::noinline]] void settle_after(int code, const char* routine) {
    mpi_call_failed(code, routine);
    if (code != MPI_ERR_IN_STATUS) return abandon_round();
    for (std::size_t i = 0; i < requests_.size(); ++i)
      if ((*statuses_)[i].MPI_ERROR == MPI_ERR_PENDING && MPI_Wait(&requests_[i], MPI_STATUS_IGNORE) != MPI_SUCCESS)
        abandon(std::span(&requests_[i], 1));
  }

  /// Reads the round's receives for notices (see the class comment): their
  /// requests come first, in step order, a request per chunk.
  void read_notices() {
    if (*failure_) return;
    std::size_t i = 0;
    for (const step& s : round_) {
      if (!receives(s) || (boxes_ && shared(s))) continue;
      for (std::size_t done = 0; done < s.landing().count; done += chunk_, ++i)
        if (received_nothing((*statuses_)[i], type_)) return record_peer_failure(s.peer);
    }
  }

  /// MPI_Isend of a chunk, or of a notice once the call has failed.
  void post_send(const T* data, int n, int peer, MPI_Request& req) {
    const int code = MPI_Isend(data, failed() ? 0 : n, type_, peer, tag_, comm_, &req);
    if (code != MPI_SUCCESS) [[unlikely]]
      send_failed(code, data, peer, req);
  }
  [[gnu::cold, gnu::noinline]] void send_failed(int code, const T* data, int peer, MPI_Request& req) {
    mpi_call_failed(code, "MPI_Isend");
    // The peer waits for this message: a notice in its place, if MPI takes one.
    if (MPI_Isend(data, 0, type_, peer, tag_, comm_, &req) != MPI_SUCCESS) req = MPI_REQUEST_NULL;
  }

  /// MPI_Irecv of a chunk.
  void post_receive(T* data, int n, int peer, MPI_Request& req) {
    const int code = MPI_Irecv(data, n, type_, peer, tag_, comm_, &req);
    if (code != MPI_SUCCESS) [[unlikely]]
      receive_failed(code, data, n, peer, req);
  }
  [[gnu::cold, gnu::noinline]] void receive_failed(int code, T* data, int n, int peer, MPI_Request& req) {
    mpi_call_failed(code, "MPI_Irecv");
    // The peer's message must still be received, or it would wait for it or
    // meet a later call: once more.
    if (MPI_Irecv(data, n, type_, peer, tag_, comm_, &req) != MPI_SUCCESS) req = MPI_REQUEST_NULL;
  }

  /// The current round, which sends and receives at most one region each
  /// (summary.exchanges): its local steps, then MPI_Sendrecv, MPI_Send or
  /// MPI_Recv. These complete exactly as the posted messages and MPI_Waitall
  /// would (MPI_Send is MPI_Isend + MPI_Wait), so the round semantics hold,
  /// for less per-call work; the receive is posted after the local steps
  /// (a prelude's first), which never touch what the round receives. False
  /// (nothing done) when a region must travel as several messages.
  bool exchange(const round_summary& summary) {
    const step* send = summary.send;
    const step* recv = summary.recv;
    // A region of no elements is no message (as in post); one beyond the chunk is several.
    const std::size_t out = summary.out, in = summary.in;
    if (out > chunk_ || in > chunk_) return false;
    if (boxes_) {
      const bool send_shared = out && boxes_->carries(send->peer, out * sizeof(T));
      const bool recv_shared = in && boxes_->carries(recv->peer, in * sizeof(T));
      if (send_shared || recv_shared) {
        if (out && in && send_shared != recv_shared) return false;  // one of each: the general round
        if (summary.local) run_local_steps(round_);
        if (out) boxes_->send(send->peer, mem_.at(send->a), failed() ? 0 : out * sizeof(T));
        if (in) {
          const std::size_t due = in * sizeof(T);
          if (const std::size_t received = boxes_->receive(recv->peer, mem_.at(*summary.landing), due); received != due)
            [[unlikely]] received_other(recv->peer, received, due);
        }
        return true;
      }
    }
    if (summary.local) run_local_steps(round_);
    const int n_out = static_cast<int>(out), n_in = static_cast<int>(in);
    const int sent = failed() ? 0 : n_out;  // a notice once failed
    MPI_Status status{};  // read only when reported, which g++ cannot tell
    MPI_Status* const reported = failure_ ? &status : MPI_STATUS_IGNORE;
    int code = MPI_SUCCESS;
    if (out && in)
      code = MPI_Sendrecv(mem_.at(send->a), sent, type_, send->peer, tag_, mem_.at(*summary.landing), n_in, type_,
                          recv->peer, tag_, comm_, reported);
    else if (out)
      code = MPI_Send(mem_.at(send->a), sent, type_, send->peer, tag_, comm_);
    else if (in)
      code = MPI_Recv(mem_.at(*summary.landing), n_in, type_, recv->peer, tag_, comm_, reported);
    if (code != MPI_SUCCESS) [[unlikely]]
      exchange_failed(code, send, n_out, recv, n_in);
    else if (in && failure_ && received_nothing(status, type_) && !*failure_) [[unlikely]]
      record_peer_failure(recv->peer);
    return true;
  }

  /// After exchange's MPI call failed, under keep_failures: a failed MPI_Send
  /// tried once more as a notice, a failed MPI_Recv as it was; a failed
  /// MPI_Sendrecv not at all, since MPI does not say which half of it happened.
  [[gnu::cold, gnu::noinline]] void exchange_failed(int code, const step* send, int out, const step* recv, int in) {
    if (out && in) return mpi_call_failed(code, "MPI_Sendrecv");
    if (out) {
      mpi_call_failed(code, "MPI_Send");
      MPI_Send(mem_.at(send->a), 0, type_, send->peer, tag_, comm_);
    } else {
      mpi_call_failed(code, "MPI_Recv");
      MPI_Recv(mem_.at(recv->landing()), in, type_, recv->peer, tag_, comm_, MPI_STATUS_IGNORE);
    }
  }

  void post(const step& s, bool is_send) {
    const region& r = is_send ? s.a : s.landing();
    T* base = mem_.at(r);
    for (std::size_t done = 0; done < r.count; done += chunk_) {
      const int n = static_cast<int>(r.count - done < chunk_ ? r.count - done : chunk_);
      // Null until MPI posts it: a post that fails leaves nothing to cancel.
      MPI_Request& req = requests_.emplace_back(MPI_REQUEST_NULL);
      if (is_send)
        post_send(base + done, n, s.peer, req);
      else
        post_receive(base + done, n, s.peer, req);
    }
  }

  MPI_Comm comm_;
  int tag_;
  MPI_Datatype type_;
  std::size_t chunk_;
  const buffers<T>& mem_;
  const Op& op_;
  std::vector<step>* steps_ = nullptr;  ///< where a plan's round is emitted (begin, run)
  std::span<const step> round_;        ///< the steps of the current round
  std::vector<MPI_Request>& requests_;
  node_mailboxes* boxes_ = nullptr;                 ///< through()'s mailboxes
  std::exception_ptr* failure_ = nullptr;           ///< keep_failures()'s place
  std::vector<MPI_Status>* statuses_ = nullptr;     ///< keep_failures()'s statuses
};

/// Runs `plan` on this rank, the messages `boxes` carries through shared
/// memory (null: none). `comm` and `tag` must be the same on every rank of
/// the call, and every rank must run the plan of its own shape.
template <class T, class Op, class Plan>
void execute_mpi(MPI_Comm comm, node_mailboxes* boxes, int tag, const Plan& plan, const T* input, T* output,
                 const Op& op) {
  const thread_lease<scratch_block> scratch;
  const buffers<T> mem{input, output, scratch->reserve<T>(plan.scratch_elems())};
  const thread_lease<round_workspace> ws;
  std::exception_ptr failure;
  round_runner<T, Op>(comm, tag, mem, op, ws->steps, ws->requests)
      .keep_failures(failure, ws->statuses)
      .through(boxes)
      .run(plan);
}

}  // namespace hpcoll::detail
