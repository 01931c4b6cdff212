// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::Mcast — the dynamic multicast: a master sends to a member set chosen
// at run time, and only the members take part. No communicator is built.
//
//   master:  hpcoll::request r = hpcoll::mcast(c, data, hpcoll::rank_set(p, {2, 5, 6}));
//            ... r.wait();                     // every member has the data
//   members: hpcoll::mcast_info got = hpcoll::mcast_recv(c, buffer);
//
// The master sends the header down the header tree (a binomial tree over the
// master and the members, rooted at the master); the members learn the member
// set, the size and the schedule from it and forward it. The data travels in
// the header (small multicasts), down the same tree (binomial), from the
// master to every member (linear), or to the lowest member, which starts the
// schedule among the members (the others). Members
// ack the master (or, in large groups, up the tree); the master's request
// completes with the last ack. The plan: mcast/plan.hpp; the wire format:
// mcast/wire.hpp; the receive engine: mcast/inbox.hpp.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <boost/hana/contains.hpp>

#include "../communicator.hpp"
#include "../entry/collective.hpp"
#include "../exec/operation.hpp"
#include "../exec/manual_engine.hpp"
#include "../request.hpp"
#include "../select/automatic.hpp"
#include "inbox.hpp"
#include "plan.hpp"
#include "rank_set.hpp"
#include "wire.hpp"

namespace hpcoll {

#ifdef HPCOLL_COMPILED_DECISIONS
extern template HPCOLL_DECIDE_INSTANCE(mcast_shape);  // compiled in hpcoll::decisions (select/dispatch.hpp)
#endif

namespace detail {

/// The master's part of one multicast: the header message to its children in
/// the header tree (mcast/wire.hpp), its part of the plan unless the data
/// travels in the header, and the acks (every member's, or its children's for
/// their subtrees).
class mcast_send final : public reusable_operation<mcast_send> {
public:
  /// The operation of a multicast: the calling thread's retired one when it
  /// has one, so a master that multicasts again and again allocates nothing.
  static std::unique_ptr<mcast_send> make(const communicator& c, progress_engine& engine, const call_info& info,
                                          const rank_set& members, std::size_t choice, const std::byte* data,
                                          std::size_t bytes) {
    std::unique_ptr<mcast_send> op = std::move(parked());
    if (op) op->rebind(c, engine, info);
    else op.reset(new mcast_send(c, engine, info));
    op->prepare(members, choice, data, bytes);
    return op;
  }

private:
  mcast_send(const communicator& c, progress_engine& engine, const call_info& info)
      : reusable_operation(c, engine, info) {}

  void prepare(const rank_set& members, std::size_t choice, const std::byte* data, std::size_t bytes) {
    const int rank = comm().rank();
    members_ = members;
    data_ = data;
    mem_ = {data, nullptr, nullptr};
    header_.schedule = static_cast<std::uint16_t>(choice);
    header_.fused = bytes <= mcast_fused_limit;
    header_.master = rank;
    header_.bytes = bytes;
    const mcast_channel& channel = comm().service<mcast_channel>();
    channel_ = channel.comm;
    member_count_ = members.count();
    header_.acks_direct = member_count_ <= std::min(channel.direct_ack_limit, mcast_direct_ack_limit);
    // Fused, the header message is the whole multicast: no plan to run.
    if (header_.fused) plan_.reset();
    else plan_.emplace(schedule::candidate_plan(mcast_shape{rank, comm().size(), rank, &members_, bytes, 1}, choice));
    plan_done_ = false;
  }

  round_runner<std::byte, no_op> runner() { return {channel_, tag_, mem_, no_op{}, steps_, requests_}; }

  /// The header (with the data when fused) to the master's children in the
  /// header tree, then the receives of the acks: one per member when they ack
  /// directly, else one per child. The headers leave first: an ack cannot
  /// come before its header has arrived and been read, and an ack that beats
  /// its receive still matches it (from MPI's queue of unexpected messages).
  void post_header_and_acks() {
    header_.tag = tag_;
    pack_mcast_message(message_, header_, members_, data_);
    side_count_ = 0;
    acks_expected_ = 0;
    std::array<int, max_children> children;
    int child_count = 0;
    for_each_mcast_child(members_, header_.master, header_.master, [&](int peer) {
      children[static_cast<std::size_t>(child_count++)] = peer;
      HPCOLL_MPI(MPI_Isend, message_.data(), static_cast<int>(message_.size()), MPI_BYTE, peer, mcast_header_tag,
                 channel_, next_side_request());
    });
    const auto expect_ack = [&](int source) {
      mcast_ack& a = acks_[static_cast<std::size_t>(acks_expected_++)];
      a = {};
      HPCOLL_MPI(MPI_Irecv, &a, mcast_ack_words, MPI_INT64_T, source, tag_ + 1, channel_, next_side_request());
    };
    if (header_.acks_direct)
      for (int m = 0; m < member_count_; ++m) expect_ack(MPI_ANY_SOURCE);  // the tag is this multicast's
    else
      for (int c = 0; c < child_count; ++c) expect_ack(children[static_cast<std::size_t>(c)]);
  }
  /// A member whose receive buffer was too small fails the master's request too.
  void check_acks() const {
    mcast_ack ack;
    for (int c = 0; c < acks_expected_; ++c) ack.merge(acks_[static_cast<std::size_t>(c)]);
    if (!ack.ok())
      throw error("", "",
                  "the receive buffer of member rank " + std::to_string(ack.failed_rank) + " holds " +
                      std::to_string(ack.capacity) + " bytes, the multicast has " + std::to_string(header_.bytes));
  }

  bool post_first() override {
    post_header_and_acks();
    plan_done_ = header_.fused || runner().post_first(*plan_, posted_);
    return false;
  }
  bool advance_rounds() override {
    if (!plan_done_) plan_done_ = runner().advance(*plan_, round_, posted_);
    if (!plan_done_) return false;
    int done = 0;
    HPCOLL_MPI(MPI_Testall, side_count_, side_.data(), &done, MPI_STATUSES_IGNORE);
    if (!done) return false;
    check_acks();
    return true;
  }
  bool complete_if_posted() override {
    if (!plan_done_) return false;
    HPCOLL_MPI(MPI_Waitall, side_count_, side_.data(), MPI_STATUSES_IGNORE);
    check_acks();
    return true;
  }
  void run_rounds() override {
    post_header_and_acks();
    if (!header_.fused) runner().run(*plan_);
    HPCOLL_MPI(MPI_Waitall, side_count_, side_.data(), MPI_STATUSES_IGNORE);
    check_acks();
  }
  /// The next side message's request, null until MPI posts it: a post that
  /// fails leaves nothing to cancel.
  MPI_Request* next_side_request() noexcept {
    MPI_Request& r = side_[static_cast<std::size_t>(side_count_++)];
    r = MPI_REQUEST_NULL;
    return &r;
  }
  void abandon_messages() noexcept override {
    abandon(requests_);
    abandon(std::span(side_).first(static_cast<std::size_t>(side_count_)));
  }

  MPI_Comm channel_ = MPI_COMM_NULL;  ///< the communicator's multicast channel
  rank_set members_;
  std::optional<decltype(schedule::candidate_plan(std::declval<const mcast_shape&>(), 0))> plan_;
  const std::byte* data_ = nullptr;
  buffers<std::byte> mem_{};
  mcast_header header_;
  std::vector<std::byte> message_;
  /// The master's children in the header tree: at most one per bit of an int rank.
  static constexpr std::size_t max_children = 31;
  static constexpr std::size_t max_acks = std::max<std::size_t>(mcast_direct_ack_limit, max_children);
  std::array<mcast_ack, max_acks> acks_;
  std::array<MPI_Request, max_acks + max_children> side_;  ///< the acks' receives, the headers' sends
  int member_count_ = 0, acks_expected_ = 0, side_count_ = 0;
  std::vector<step> steps_;
  std::vector<MPI_Request> requests_;
  bool plan_done_ = false;
};

}  // namespace detail

/// hpcoll::Mcast<Schedule, Progress>: multicast from the calling rank (the
/// master) to a member set. Schedule is schedule::automatic (the dispatcher
/// prices the candidates as a broadcast among the members; HPCOLL_MCAST
/// overrides) or one of schedule::candidates<mcast_shape>. The master alone
/// calls it, so there is no checked mode.
template <class Schedule = schedule::automatic, progress_policy Progress = progress::manual>
struct Mcast {
  using schedule_type = Schedule;
  static_assert(std::same_as<Schedule, schedule::automatic> ||
                    decltype(boost::hana::contains(schedule::candidates<mcast_shape>,
                                                   boost::hana::type_c<Schedule>))::value,
                "hpcoll: Mcast runs only the schedules of schedule::candidates<mcast_shape> (binomial, "
                "scatter_ring_allgather, scatter_recursive_doubling_allgather, linear): members learn the "
                "schedule from the message");

  /// Starts a multicast of `data` to `members` (a set of c.size() ranks
  /// without the calling rank) and returns at once. `data` must stay valid and
  /// unchanged until the request completes; the request completes when every
  /// member has the data (and raises if a member's buffer was too small).
  template <detail::input_range Data>
  request operator()(const communicator& c, Data&& data, const rank_set& members) const {
    detail::check_outlives<Data>();
    const auto call = prepare(c, data, members);
    const auto choice = detail::choose<Mcast, Schedule, check::never, Progress, false>(c, call);
    const std::size_t index = candidate_index(choice);
    const int tag = c.service<detail::mcast_channel>().next_data_tag();
    auto run = detail::mcast_send::make(c, detail::engine_of<Progress>::get(), detail::info_of<decltype(call)>(choice),
                                        members, index, reinterpret_cast<const std::byte*>(call.input),
                                        call.shape.count * call.shape.elem_size);
    run->engine().launch(*run, tag);
    run->count_run();
    return request(std::move(run));
  }

  /// The master's call: its data and the member set.
  template <detail::input_range Data>
  static auto prepare(const communicator& c, const Data& data, const rank_set& members) {
    const auto span = detail::input_span(data);
    using T = typename decltype(span)::value_type;
    detail::prepared_call<mcast_shape, T> call;
    call.set({c.rank(), c.size(), c.rank(), &members, span.size(), sizeof(T)}, span.data(), nullptr, {});
    call.args.require(members.size() == c.size(), "the member set is a set of ", members.size(),
                      " ranks, the communicator has ", c.size());
    call.args.require(!members.empty(), "the member set is empty");
    call.args.require(!members.contains(c.rank()), "the master (rank ", c.rank(), ") is in the member set");
    return call;
  }

private:
  /// Members learn the schedule from its position among the candidates.
  template <class Choice>
  static std::size_t candidate_index(const Choice& choice) {
    if constexpr (requires { choice.index; }) {
      return choice.index;
    } else {
      static const std::size_t index = schedule::find_candidate<mcast_shape>(choice.schedule());
      return index;
    }
  }
};

/// hpcoll::mcast(c, data, members): Mcast<>{}(c, data, members).
template <class Data>
request mcast(const communicator& c, Data&& data, const rank_set& members) {
  return Mcast<>{}(c, std::forward<Data>(data), members);
}

/// The handle of a multicast receive (hpcoll::mcast_irecv): takes part in the
/// multicasts reaching this rank whenever it is tested or waited on, and
/// completes when a multicast has been delivered into its buffer. Move-only;
/// destroying it while its multicast is in progress waits for it.
class mcast_receive {
public:
  mcast_receive() = default;
  /// Library internal: posts a receive of `capacity` bytes into `buffer`.
  mcast_receive(const communicator& c, std::byte* buffer, std::size_t capacity, std::size_t elem_size)
      : comm_(c), slot_(std::move(parked_slot())) {
    if (slot_) *slot_ = {};
    else slot_ = std::make_unique<detail::mcast_slot>();
    slot_->buffer = buffer;
    slot_->capacity = capacity;
    slot_->elem_size = elem_size;
    with_inbox([&](detail::mcast_inbox& inbox) { inbox.post(*slot_); });
  }
  mcast_receive(mcast_receive&&) noexcept = default;
  mcast_receive& operator=(mcast_receive&& other) noexcept {
    if (this != &other) {
      settle();
      comm_ = std::move(other.comm_);
      slot_ = std::move(other.slot_);
    }
    return *this;
  }
  ~mcast_receive() { settle(); }

  /// Whether a receive is posted and not yet completed by test() or wait().
  bool active() const noexcept { return slot_ != nullptr; }

  /// Takes part in the multicasts in progress; the multicast once one has been
  /// delivered into the buffer (the receive is then complete), else nullopt.
  /// A buffer too small for the multicast is an hpcoll::error.
  std::optional<mcast_info> test() {
    if (!slot_) throw error("mcast", "", "mcast_receive::test: no receive is posted");
    bool done = false;
    with_inbox([&](detail::mcast_inbox& inbox) {
      inbox.progress();
      done = slot_->done;
    });
    if (!done) return std::nullopt;
    return complete();
  }
  /// Blocks until a multicast has been delivered into the buffer. While no
  /// multicast is in progress on this rank it waits inside MPI (MPI_Wait on
  /// the posted header receive) rather than polling.
  mcast_info wait() {
    if (!slot_) throw error("mcast", "", "mcast_receive::wait: no receive is posted");
    while (true) {
      detail::mcast_inbox* idle = nullptr;
      bool done = false;
      with_inbox([&](detail::mcast_inbox& inbox) {
        inbox.progress();
        done = slot_->done;
        if (!done && inbox.idle() && !slot_->matched) idle = &inbox;
      });
      if (idle) {
        const MPI_Status arrival = idle->wait_for_header();
        with_inbox([&](detail::mcast_inbox& inbox) {
          inbox.accept(arrival);
          done = slot_->done;
        });
      }
      if (done) return complete();
    }
  }

private:
  template <class F>
  void with_inbox(F&& f) const {
    detail::mcast_channel& ch = comm_->service<detail::mcast_channel>();
    const std::lock_guard lock(ch.mutex);
    f(ch.inbox());
  }
  mcast_info complete() {
    std::unique_ptr<detail::mcast_slot> slot = std::move(slot_);
    if (!slot->problem.empty()) throw error("mcast", "", "mcast_recv: " + slot->problem);
    mcast_info info = std::move(slot->info);
    parked_slot() = std::move(slot);
    return info;
  }
  /// The slot of this thread's last completed receive, kept for the next one
  /// (a worker receiving again and again allocates no slot).
  static std::unique_ptr<detail::mcast_slot>& parked_slot() {
    thread_local std::unique_ptr<detail::mcast_slot> kept;
    return kept;
  }
  /// A receive not yet matched is withdrawn; a matched one is driven to its end.
  void settle() noexcept {
    if (!slot_) return;
    try {
      bool withdrawn = false;
      with_inbox([&](detail::mcast_inbox& inbox) { withdrawn = inbox.withdraw(*slot_); });
      if (!withdrawn) wait();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "hpcoll: a multicast receive destroyed before completion failed: %s\n", e.what());
    }
    slot_.reset();
  }

  std::optional<communicator> comm_;
  std::unique_ptr<detail::mcast_slot> slot_;
};

/// hpcoll::mcast_irecv(c, buffer): posts a receive for the next multicast to
/// reach this rank (any master); `buffer` must stay valid until it completes.
template <detail::output_range Buffer>
mcast_receive mcast_irecv(const communicator& c, Buffer&& buffer) {
  detail::check_outlives<Buffer>();
  const auto span = detail::output_span(buffer);
  using T = typename decltype(span)::value_type;
  static_assert(transmittable<T>, "hpcoll: the element type must be trivially copyable");
  return mcast_receive(c, reinterpret_cast<std::byte*>(span.data()), span.size_bytes(), sizeof(T));
}

/// hpcoll::mcast_recv(c, buffer): blocks until a multicast reaches this rank
/// (from any master) and has been received into `buffer`; returns its member
/// set, element count and master. While it waits, this rank takes part in
/// every multicast that reaches it.
template <detail::output_range Buffer>
mcast_info mcast_recv(const communicator& c, Buffer&& buffer) {
  const auto span = detail::output_span(buffer);
  return mcast_irecv(c, span).wait();
}

/// hpcoll::mcast_try_recv(c, buffer): like mcast_recv when a multicast has
/// reached this rank (it then takes part until that multicast is delivered,
/// as MPI_Iprobe followed by MPI_Recv would); std::nullopt at once when none has.
template <detail::output_range Buffer>
std::optional<mcast_info> mcast_try_recv(const communicator& c, Buffer&& buffer) {
  detail::mcast_channel& ch = c.service<detail::mcast_channel>();
  {
    const std::lock_guard lock(ch.mutex);
    detail::mcast_inbox& inbox = ch.inbox();
    inbox.progress();
    if (!inbox.has_unmatched()) return std::nullopt;
  }
  return mcast_recv(c, buffer);
}

}  // namespace hpcoll
