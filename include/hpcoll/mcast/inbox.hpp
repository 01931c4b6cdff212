// SPDX-License-Identifier: BSD-3-Clause
// The receive side of the dynamic multicast: one engine per communicator that
// takes part in every multicast reaching this rank.
//
// A member cannot know which multicasts it belongs to, nor in which order
// multicasts to overlapping groups reach it, so a member that served one
// multicast at a time could wait for a peer that waits for it in another one.
// The engine therefore picks up every header that arrives while any receive
// is in progress, and advances all multicasts it has picked up together. A
// multicast goes straight into the buffer of the receive it is matched with
// when that receive was posted before it arrived (the usual case); otherwise
// into internal staging, copied out when a receive comes. Receives are matched
// with multicasts in the order the multicasts arrive.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../communicator.hpp"
#include "../error.hpp"
#include "../exec/executor.hpp"
#include "../mpi_call.hpp"
#include "../select/automatic.hpp"
#include "plan.hpp"
#include "rank_set.hpp"
#include "wire.hpp"

namespace hpcoll {

/// What a multicast receive delivered.
struct mcast_info {
  rank_set members;       ///< the multicast's member set
  std::size_t count = 0;  ///< elements received
  int master = -1;        ///< the rank that sent it
};

namespace detail {

/// A posted multicast receive: a buffer waiting for a multicast.
struct mcast_slot {
  std::byte* buffer = nullptr;
  std::size_t capacity = 0;  ///< bytes
  std::size_t elem_size = 1;
  bool matched = false;
  bool done = false;
  mcast_info info;
  std::string problem;  ///< why the receive failed, empty when it did not

  /// Whether a multicast of `bytes` bytes fits the buffer. (Element sizes
  /// are mostly powers of two: a mask then, not a division, on the path to the ack.)
  bool fits(std::uint64_t bytes) const noexcept {
    const bool whole = (elem_size & (elem_size - 1)) == 0 ? (bytes & (elem_size - 1)) == 0 : bytes % elem_size == 0;
    return bytes <= capacity && whole;
  }
  /// Why `bytes`, which do not fit, do not fit.
  std::string misfit(std::uint64_t bytes, int master) const {
    if (bytes > capacity)
      return "the receive buffer holds " + std::to_string(capacity / elem_size) + " elements (" +
             std::to_string(capacity) + " bytes), the multicast from rank " + std::to_string(master) + " has " +
             std::to_string(bytes) + " bytes";
    return "the multicast from rank " + std::to_string(master) + " has " + std::to_string(bytes) +
           " bytes, not a whole number of " + std::to_string(elem_size) + "-byte elements";
  }
};

class mcast_inbox {
public:
  mcast_inbox(MPI_Comm comm, int rank, int size) : comm_(comm), rank_(rank), size_(size) {}
  mcast_inbox(const mcast_inbox&) = delete;
  mcast_inbox& operator=(const mcast_inbox&) = delete;
  ~mcast_inbox() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    for (auto& in : active_) in->abandon();
    if (header_request_ != MPI_REQUEST_NULL && MPI_Cancel(&header_request_) == MPI_SUCCESS)
      MPI_Wait(&header_request_, MPI_STATUS_IGNORE);
  }

  /// Queues a receive; it is matched with the oldest multicast not yet matched.
  void post(mcast_slot& slot) {
    waiting_.push_back(&slot);
    match();
  }
  /// Withdraws a receive not yet matched; false if it is matched (it must then
  /// be driven to its end, its buffer may be in use).
  bool withdraw(mcast_slot& slot) {
    if (slot.matched) return false;
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), &slot));
    return true;
  }
  /// Whether nothing is in progress: a receive may then block in MPI until a
  /// header arrives (see wait_for_header) instead of polling.
  bool idle() const { return active_.empty(); }

  /// Blocks in MPI until the next header has arrived; then hand its status to
  /// accept() under the channel's lock. Called without the lock, by the one
  /// thread that runs this communicator's receive calls.
  MPI_Status wait_for_header() {
    post_header_receive();
    MPI_Status status;
    HPCOLL_MPI(MPI_Wait, &header_request_, &status);
    return status;
  }

  /// Starts the multicast of the header that has just arrived, then posts
  /// the receive of the next header: after this one's forwards, first round
  /// and (when due at once) ack have left, and before the receiving call
  /// returns, so the next header finds it posted.
  void accept(const MPI_Status& status) {
    int bytes = 0;
    HPCOLL_MPI(MPI_Get_count, &status, MPI_BYTE, &bytes);
    std::unique_ptr<incoming> in = fresh();
    std::swap(in->message, arriving_);
    in->read(status.MPI_SOURCE, static_cast<std::size_t>(bytes));
    active_.push_back(std::move(in));
    match();
    active_.back()->start();
    sweep();
    post_header_receive();
  }

  /// Whether a multicast has arrived (as of the last progress()) that no receive has taken yet.
  bool has_unmatched() const {
    return std::any_of(active_.begin(), active_.end(), [](const auto& in) { return in->slot == nullptr; });
  }
  /// One sweep: advances every multicast in progress, completes the receives
  /// whose multicast has ended, then picks up arrived headers (one, and more
  /// while receives wait). Never blocks.
  /// Messages in flight come first: a test that finds nothing may give the
  /// core away (Open MPI yields when oversubscribed).
  void progress() {
    sweep();
    pick_up_arrivals();
  }

private:
  /// One multicast this rank is a member of, from its header to its ack.
  struct incoming {
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0, size = 0;
    int parent = -1;  ///< the rank the header came from
    mcast_header head;
    rank_set members;
    std::vector<std::byte> message;  ///< the header message, forwarded as received, in its first message_bytes
    std::size_t message_bytes = 0;
    std::vector<std::byte> staging;  ///< the data when no matched buffer takes it
    std::byte* data = nullptr;
    mcast_slot* slot = nullptr;
    std::optional<decltype(schedule::candidate_plan(std::declval<const mcast_shape&>(), 0))> plan;
    std::vector<std::byte> scratch;
    std::vector<step> steps;
    std::vector<MPI_Request> plan_requests, side_requests;  ///< side: header forwards and child acks
    std::vector<int> children;  ///< in the header tree: header forwards (and acks up the tree)
    std::vector<mcast_ack> child_acks;
    mcast_ack ack;
    MPI_Request ack_request = MPI_REQUEST_NULL;
    int round = 0;
    bool posted = false, plan_done = false, acking = false, finished = false;

    /// Reads the header message of `bytes` bytes received from `source`.
    void read(int source, std::size_t bytes) {
      message_bytes = bytes;
      if (message_bytes < mcast_prefix_bytes(size))
        throw error("mcast", "", "a multicast header from rank " + std::to_string(source) + " is too short");
      std::memcpy(&head, message.data(), sizeof head);
      if (head.magic != mcast_header::expected_magic ||
          head.schedule >= schedule::candidate_count<mcast_shape> ||
          (head.fused && message_bytes != mcast_prefix_bytes(size) + head.bytes))
        throw error("mcast", "", "a malformed multicast header from rank " + std::to_string(source));
      parent = source;
      const std::size_t words = (static_cast<std::size_t>(size) + 63) / 64;
      std::vector<rank_set::word>& bits = word_buffer();
      bits.resize(words);
      std::memcpy(bits.data(), message.data() + sizeof head, words * sizeof(rank_set::word));
      members.assign(size, bits);
    }

    /// Forwards the header, posts the child acks and the plan's first round.
    /// The data lands in the matched receive's buffer when it fits, else in
    /// staging. A multicast whose data came in the header acks before the
    /// data is copied out when this rank's ack waits for no child's: the
    /// master needs to know the data has arrived, not where it was put.
    void start() {
      ack = {};
      data = nullptr;
      const bool fits = slot && slot->fits(head.bytes);
      if (slot && !fits) ack = {rank, static_cast<std::int64_t>(slot->capacity)};
      children.clear();
      for_each_mcast_child(members, head.master, rank, [&](int peer) { children.push_back(peer); });
      child_acks.assign(head.acks_direct ? 0 : children.size(), {});  // sized before the receives point into it
      side_requests.clear();
      for (std::size_t c = 0; c < children.size(); ++c) {
        HPCOLL_MPI(MPI_Isend, message.data(), static_cast<int>(message_bytes), MPI_BYTE, children[c],
                   mcast_header_tag, comm, &side_requests.emplace_back(MPI_REQUEST_NULL));
        if (!head.acks_direct)
          HPCOLL_MPI(MPI_Irecv, &child_acks[c], mcast_ack_words, MPI_INT64_T, children[c], head.tag + 1, comm,
                     &side_requests.emplace_back(MPI_REQUEST_NULL));
      }
      plan_done = head.fused != 0;
      if (plan_done && (head.acks_direct || children.empty())) send_ack();
      std::byte* const inline_data = message.data() + mcast_prefix_bytes(size);
      if (fits) {
        data = slot->buffer;
      } else if (head.fused) {
        data = inline_data;
      } else {
        staging.resize(head.bytes);
        data = staging.data();
      }
      if (head.fused && data != inline_data && head.bytes) copy_bytes(data, inline_data, head.bytes);
      if (!plan_done) {
        const mcast_shape shape{rank, size, head.master, &members, head.bytes, 1};
        plan.emplace(schedule::candidate_plan(shape, head.schedule));
        scratch.resize(plan->scratch_elems());
        plan_done = runner().post_first(*plan, posted);
      }
    }

    /// True once this rank has the data, its header forwards and its ack have
    /// left, and (acks up the tree) its subtree has acked.
    bool advance() {
      if (finished) return true;
      if (!plan_done) plan_done = runner().advance(*plan, round, posted);
      if (!plan_done) return false;
      if (!acking) {
        if (!head.acks_direct && !all_done(side_requests)) return false;
        send_ack();
      }
      int done = 0;
      HPCOLL_MPI(MPI_Test, &ack_request, &done, MPI_STATUS_IGNORE);
      finished = done != 0 && all_done(side_requests);
      return finished;
    }

    /// This rank's ack, with its subtree's when acks travel up the tree.
    void send_ack() {
      for (const mcast_ack& a : child_acks) ack.merge(a);
      HPCOLL_MPI(MPI_Isend, &ack, mcast_ack_words, MPI_INT64_T, head.acks_direct ? head.master : parent,
                 head.tag + 1, comm, &ack_request);
      acking = true;
    }

    /// Makes the entry ready for another multicast (its vectors keep their storage).
    void reset() {
      data = nullptr;
      slot = nullptr;
      plan.reset();
      round = 0;
      posted = plan_done = acking = finished = false;
    }

    void abandon() noexcept {
      for (auto* list : {&plan_requests, &side_requests}) detail::abandon(*list);
      if (ack_request != MPI_REQUEST_NULL) MPI_Request_free(&ack_request);
    }

  private:
    round_runner<std::byte, no_op> runner() {
      mem = {nullptr, data, scratch.data()};
      return {comm, head.tag, mem, no_op{}, steps, plan_requests};
    }
    static bool all_done(std::vector<MPI_Request>& requests) {
      if (requests.empty()) return true;
      int done = 0;
      HPCOLL_MPI(MPI_Testall, static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
      return done != 0;
    }
    static std::vector<rank_set::word>& word_buffer() {
      thread_local std::vector<rank_set::word> bits;
      return bits;
    }
    buffers<std::byte> mem;
  };

  /// Posts the receive of the next header unless it is posted. Posted ahead,
  /// headers land in place rather than in MPI's queue of unexpected messages
  /// (one copy and one matching step fewer). Every header fits: it is the
  /// prefix, plus the data when fused.
  void post_header_receive() {
    if (header_request_ != MPI_REQUEST_NULL) return;
    arriving_.resize(mcast_prefix_bytes(size_) + mcast_fused_limit);
    HPCOLL_MPI(MPI_Irecv, arriving_.data(), static_cast<int>(arriving_.size()), MPI_BYTE, MPI_ANY_SOURCE,
               mcast_header_tag, comm_, &header_request_);
  }

  /// Picks up arrived headers: one, and more while receives wait for a
  /// multicast. A receive whose multicast has come thus returns even while
  /// masters keep sending; the others are picked up by later calls.
  void pick_up_arrivals() {
    do {
      post_header_receive();
      int flag = 0;
      MPI_Status status;
      HPCOLL_MPI(MPI_Test, &header_request_, &flag, &status);
      if (!flag) return;
      accept(status);
    } while (!waiting_.empty());
  }

  /// Advances every multicast in progress and delivers those that have ended
  /// into their matched receives.
  void sweep() {
    for (std::size_t i = 0; i < active_.size();) {
      incoming& in = *active_[i];
      if (in.advance() && in.slot) {
        deliver(in);
        spare_.push_back(std::move(active_[i]));
        active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      ++i;
    }
  }

  std::unique_ptr<incoming> fresh() {
    if (spare_.empty()) {
      auto in = std::make_unique<incoming>();
      in->comm = comm_;
      in->rank = rank_;
      in->size = size_;
      return in;
    }
    std::unique_ptr<incoming> in = std::move(spare_.back());
    spare_.pop_back();
    in->reset();
    return in;
  }

  /// Pairs waiting receives with unmatched multicasts, oldest first; a
  /// multicast that has already ended is delivered at once.
  void match() {
    for (std::size_t i = 0; i < active_.size() && !waiting_.empty(); ++i) {
      incoming& in = *active_[i];
      if (in.slot) continue;
      in.slot = waiting_.front();
      in.slot->matched = true;
      waiting_.pop_front();
      if (in.finished) {
        deliver(in);
        spare_.push_back(std::move(active_[i]));
        active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
        --i;
      }
    }
  }

  /// Completes the receive of an ended multicast.
  static void deliver(incoming& in) {
    mcast_slot& s = *in.slot;
    if (!s.fits(in.head.bytes)) s.problem = s.misfit(in.head.bytes, in.head.master);
    if (s.problem.empty() && in.data != s.buffer && in.head.bytes) copy_bytes(s.buffer, in.data, in.head.bytes);
    s.info.members = in.members;
    s.info.count = s.problem.empty() ? in.head.bytes / s.elem_size : 0;
    s.info.master = in.head.master;
    s.done = true;
  }

  MPI_Comm comm_;
  int rank_, size_;
  std::vector<std::unique_ptr<incoming>> active_;  ///< picked up and not yet delivered, in arrival order
  std::vector<std::unique_ptr<incoming>> spare_;   ///< delivered, kept for reuse
  std::deque<mcast_slot*> waiting_;                ///< receives not yet matched, in posting order
  std::vector<std::byte> arriving_;                ///< the buffer of the posted header receive
  MPI_Request header_request_ = MPI_REQUEST_NULL;
};

/// The multicast side of a communicator (a communicator service): its
/// unsequenced duplicate, the receive engine (made on first use) and what the
/// ranks' multicasts share. `mutex` guards the receive engine.
class mcast_channel final : public communicator_service {
public:
  explicit mcast_channel(const communicator_facts& f)
      : comm(f.unsequenced),
        tag_slots_(static_cast<unsigned>(f.tag_span - 1) / 2),
        tag_step_(static_cast<unsigned>(f.size) % tag_slots_),
        next_tag_slot_(static_cast<unsigned>(f.rank) % tag_slots_),
        rank_(f.rank),
        size_(f.size) {}

  const MPI_Comm comm;
  std::mutex mutex;
  /// Groups of up to this many members (at most mcast_direct_ack_limit) ack
  /// this rank directly when it is master; tests lower it to run acks up the
  /// header tree.
  int direct_ack_limit = mcast_direct_ack_limit;

  /// The data tag of this rank's next multicast as master: odd tag 1 + 2k
  /// for slot k = (s · size + rank) mod slots at its s-th multicast, so the
  /// tags of the multicasts one master has in flight, and of different
  /// masters, differ as long as fewer than slots / size of them overlap at
  /// one pair of ranks. Kept by addition, not division, lock-free.
  int next_data_tag() noexcept {
    unsigned slot = next_tag_slot_.load(std::memory_order_relaxed);
    unsigned next;
    do {
      next = slot + tag_step_;
      if (next >= tag_slots_) next -= tag_slots_;
    } while (!next_tag_slot_.compare_exchange_weak(slot, next, std::memory_order_relaxed));
    return 1 + 2 * static_cast<int>(slot);
  }

  /// The receive engine; call with `mutex` held.
  mcast_inbox& inbox() {
    if (!inbox_) inbox_.emplace(comm, rank_, size_);
    return *inbox_;
  }

private:
  const unsigned tag_slots_, tag_step_;
  std::atomic<unsigned> next_tag_slot_;
  int rank_, size_;
  std::optional<mcast_inbox> inbox_;
};

}  // namespace detail

}  // namespace hpcoll
