// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::request and hpcoll::persistent_request: handles of nonblocking and
// persistent collectives.
#pragma once

#include <cstddef>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <iterator>
#include <utility>

#include "error.hpp"
#include "exec/operation.hpp"

namespace hpcoll {

namespace detail {

/// What both handles share: an operation and whether a run of it is active
/// (started and not yet completed by test or wait).
class request_base {
public:
  request_base& operator=(request_base&& other) noexcept {
    if (this != &other) {
      settle_quietly();
      op_ = std::move(other.op_);
      active_ = std::exchange(other.active_, false);
      one_shot_ = other.one_shot_;
    }
    return *this;
  }

  /// Whether a run is in flight or has ended without test() or wait() having
  /// seen it end.
  bool active() const noexcept { return active_; }
  /// Whether the run has ended (true when none is active). Makes no progress.
  bool ready() const noexcept { return !active_ || op_->done(); }
  /// Library internal: the engine of the run in flight (nullptr when none),
  /// and one attempt at progress by it.
  detail::progress_engine* engine() const noexcept { return active_ ? &op_->engine() : nullptr; }
  void drive() {
    if (active_) op_->engine().drive(*op_);
  }
  /// Advances progress (manual policy) and returns whether the run has ended;
  /// once it has, the request is complete: no longer active, and a failure is
  /// raised here.
  bool test() {
    if (!active_) return true;
    op_->engine().drive(*op_);
    if (!op_->done()) return false;
    wait();
    return true;
  }
  /// Blocks until the run has ended (advancing it under the manual policy) and
  /// completes the request; raises the run's failure, if any.
  void wait() {
    if (!active_) return;
    op_->engine().await(*op_);
    complete();
  }

protected:
  request_base() noexcept = default;
  /// A one-shot request (active from the start, its operation freed on
  /// completion) or a persistent one (inactive until started, kept).
  request_base(std::unique_ptr<operation> op, bool one_shot) noexcept
      : op_(std::move(op)), active_(one_shot), one_shot_(one_shot) {}
  request_base(request_base&& other) noexcept
      : op_(std::move(other.op_)), active_(std::exchange(other.active_, false)), one_shot_(other.one_shot_) {}
  /// Destroying or overwriting a request in flight waits for it (its buffers
  /// are in use by MPI until then). A failure nobody can be told of is
  /// reported on stderr.
  ~request_base() { settle_quietly(); }

  std::unique_ptr<operation> op_;
  bool active_ = false;
  bool one_shot_ = true;

private:
  void complete() {
    active_ = false;
    std::exception_ptr failure;
    try {
      op_->rethrow_failure();
    } catch (...) {
      failure = std::current_exception();
    }
    if (one_shot_) {
      if (failure) op_.reset();
      else op_.release()->retire();
    }
    if (failure) std::rethrow_exception(failure);
  }
  void settle_quietly() noexcept {
    try {
      wait();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "hpcoll: a request destroyed before completion failed: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "hpcoll: a request destroyed before completion failed\n");
    }
  }
};

}  // namespace detail

/// The handle of a nonblocking collective (hpcoll::iallreduce, Coll::start).
/// Move-only. It owns every temporary buffer of its schedule; the caller's
/// buffers must stay valid and untouched until it completes. Destroying or
/// assigning over a request in flight waits for it first.
class request : public detail::request_base {
public:
  request() noexcept = default;
  /// Library internal: a request for a run of `op` that has been launched.
  explicit request(std::unique_ptr<detail::operation> op) noexcept : request_base(std::move(op), true) {}
};

/// The handle of a persistent collective (Coll::persistent, MPI_Allreduce_init
/// semantics): the arguments are checked and the schedule built once; each
/// start() replays it, without allocating, as the next collective on the
/// communicator (every rank starts its persistent requests in the same order
/// as its other collectives). Destroying it while a run is active waits.
class persistent_request : public detail::request_base {
public:
  persistent_request() noexcept = default;
  /// Library internal: an inactive request for `op`.
  explicit persistent_request(std::unique_ptr<detail::operation> op) noexcept : request_base(std::move(op), false) {}

  /// Starts a run; the previous one must have completed (test() or wait()).
  void start() {
    if (!op_)
      throw error("", "", "persistent_request::start: the request is empty (moved from or default-constructed)");
    if (active_) throw error("", "", "persistent_request::start: the previous run is still active; wait for it first");
    op_->engine().launch(*op_, op_->comm().next_tag());
    active_ = true;
    op_->count_run();
  }
};

/// Waits for every request of the range; if runs failed, raises the first
/// failure after all have ended (like MPI_Waitall).
template <class Requests>
  requires requires(Requests& r) { std::ranges::begin(r); std::ranges::end(r); }
void wait_all(Requests&& requests) {
  std::exception_ptr first;
  for (auto& r : requests) {
    try {
      r.wait();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

/// Waits until one active request of the range has ended, completes it and
/// returns its index; std::nullopt if none is active (MPI_UNDEFINED). A failed
/// run is raised.
template <class Requests>
  requires requires(Requests& r) { std::ranges::begin(r); std::ranges::end(r); }
std::optional<std::size_t> wait_any(Requests&& requests) {
  while (true) {
    bool any_active = false;
    std::size_t i = 0;
    for (auto& r : requests) {
      if (r.active()) {
        any_active = true;
        if (r.ready()) {
          r.wait();
          return i;
        }
      }
      ++i;
    }
    if (!any_active) return std::nullopt;
    detail::progress_engine* driven = nullptr;  // one attempt per engine (each advances all its requests)
    for (auto& r : requests) {
      if (detail::progress_engine* e = r.engine(); e && e != driven) {
        driven = e;
        r.drive();
      }
    }
    detail::yield_core();
  }
}

}  // namespace hpcoll
