// SPDX-License-Identifier: BSD-3-Clause
// One nonblocking or persistent collective call: its plan, buffers and
// progress state, owned by an hpcoll::request until the call has finished.
#pragma once

#include <mpi.h>

#if __has_include(<sched.h>)
#include <sched.h>
#else
#include <thread>
#endif

#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "../communicator.hpp"
#include "../error.hpp"
#include "../plan/shape.hpp"
#include "arena.hpp"
#include "counters.hpp"
#include "executor.hpp"
#include "owned_shape.hpp"

namespace hpcoll::detail {

/// Gives the core to another thread or process for a moment (a rank that
/// waits for messages lets its peers run when cores are shared).
inline void yield_core() noexcept {
#if __has_include(<sched.h>)
  sched_yield();
#else
  std::this_thread::yield();
#endif
}

class operation;

/// Who advances the operations of one progress policy (exec/manual_engine.hpp,
/// exec/threaded_engines.hpp). Engines live as long as the program.
class progress_engine {
public:
  /// Starts a run of `op` whose messages carry `tag`: what the issuing thread
  /// posts itself, the rest handed to the engine.
  virtual void launch(operation& op, int tag) = 0;
  /// One attempt at progress on behalf of a request's test().
  virtual void drive(const operation& op) = 0;
  /// Blocks until `op`'s run has ended and the engine has let go of it.
  virtual void await(const operation& op) = 0;

protected:
  ~progress_engine() = default;
};

/// The engine of a progress policy (a policy tag of hpcoll/policies.hpp):
/// `static progress_engine& get()` and `static unavailable()`, a string (or
/// string_view), empty or why the engine cannot run here. Specialised next
/// to each engine.
template <class Progress>
struct engine_of;

/// The type-erased part of an operation, what requests and progress engines see.
///
/// A run: start(tag) and post_first_round() (by the thread that issues it),
/// then advance() until it returns true (by one thread at a time: the manual
/// engine's callers or the progress thread); or start(tag), then run() (the
/// offload worker);
/// then the engine that ran it calls finish(), under its own lock, so a waiter
/// that takes that lock afterwards knows the engine is done with it.
class operation {
public:
  operation(const communicator& c, progress_engine& engine, const call_info& info)
      : comm_(c), engine_(&engine), info_(info) {}
  virtual ~operation() = default;
  operation(const operation&) = delete;
  operation& operator=(const operation&) = delete;

  /// Ends a one-shot operation whose run has ended well; one that can be
  /// reused is kept for the next call of its kind instead of freed.
  virtual void retire() noexcept { delete this; }

  const communicator& comm() const noexcept { return *comm_; }
  progress_engine& engine() const noexcept { return *engine_; }

  /// Begins a run whose messages carry `tag`.
  void start(int tag) noexcept {
    tag_ = tag;
    round_ = 0;
    posted_ = false;
    failure_ = nullptr;
    done_.store(false, std::memory_order_relaxed);
  }
  /// Posts the first round's messages only (the issuing thread returns to its
  /// work at once); true if the run has already ended.
  bool post_first_round() noexcept { return guarded([this] { return post_first(); }); }
  /// Advances without blocking; true once the run has ended (a failure ends it too).
  bool advance() noexcept { return guarded([this] { return advance_rounds(); }); }
  /// When the run has nothing left to post, only messages to complete:
  /// blocks in MPI until it has ended and returns true (a failure ends it
  /// too). Otherwise returns false at once.
  bool complete_posted() noexcept { return guarded([this] { return complete_if_posted(); }); }
  /// Runs to the end in the calling thread, blocking in MPI.
  void run() noexcept {
    try {
      run_rounds();
    } catch (...) {
      fail();
    }
  }
  /// Marks the run ended and wakes its waiters.
  void finish() noexcept {
    done_.store(true, std::memory_order_release);
    done_.notify_all();
  }

  bool done() const noexcept { return done_.load(std::memory_order_acquire); }
  /// Blocks until finish() (for operations another thread advances).
  void await_done() const noexcept { done_.wait(false, std::memory_order_acquire); }
  /// Counts a run in the communicator's schedule counters.
  void count_run() const { comm().service<schedule_counters>().count(info_); }
  /// Rethrows what made the ended run fail, if anything did.
  void rethrow_failure() const {
    if (failure_) std::rethrow_exception(failure_);
  }

protected:
  /// Makes a retired operation the operation of a new call.
  void rebind(const communicator& c, progress_engine& engine, const call_info& info) {
    comm_.emplace(c);
    engine_ = &engine;
    info_ = info;
  }
  /// Lets go of the communicator while the operation waits to be reused.
  void unbind() noexcept { comm_.reset(); }

  virtual bool post_first() = 0;
  virtual bool advance_rounds() = 0;
  /// complete_posted() of a run; by default such a run cannot be told apart.
  virtual bool complete_if_posted() { return false; }
  virtual void run_rounds() = 0;
  /// After a failure: cancels and frees the run's pending messages.
  virtual void abandon_messages() noexcept = 0;

  int tag_ = 0;
  int round_ = 0;
  bool posted_ = false;

private:
  template <class Step>
  bool guarded(Step step) noexcept {
    try {
      return step();
    } catch (...) {
      fail();
      return true;
    }
  }
  void fail() noexcept {
    try {
      throw;
    } catch (const error& e) {
      failure_ = std::make_exception_ptr(named(e, info_.collective, *info_.schedule));
    } catch (...) {
      failure_ = std::current_exception();
    }
    abandon_messages();
  }

  std::optional<communicator> comm_;  // keeps the library's duplicate alive while the run needs it
  progress_engine* engine_;
  call_info info_;
  std::exception_ptr failure_;
  std::atomic<bool> done_{true};
};

/// An operation of kind Derived that is kept for reuse: when one that ended
/// well retires, its thread keeps it (one per kind and thread) for the next
/// call of its kind, which takes it from parked() and rebinds it, so a
/// repeated call allocates nothing.
template <class Derived>
class reusable_operation : public operation {
public:
  using operation::operation;

  /// The retired operation of this kind kept by the calling thread, if any.
  static std::unique_ptr<Derived>& parked() {
    thread_local std::unique_ptr<Derived> kept;
    return kept;
  }

  void retire() noexcept override {
    std::unique_ptr<Derived>& kept = parked();
    if (kept) {
      delete this;
      return;
    }
    unbind();
    kept.reset(static_cast<Derived*>(this));
  }
};

/// An operation running `Plan` on elements of type T: it owns the plan, the
/// shape the plan refers to, the op, scratch memory and the round's working
/// storage, so a replayed persistent run allocates nothing.
template <class T, class Op, class Shape, class Plan>
class scheduled_operation final : public reusable_operation<scheduled_operation<T, Op, Shape, Plan>> {
  using base = reusable_operation<scheduled_operation>;

public:
  template <class MakePlan>
  scheduled_operation(const communicator& c, progress_engine& engine, const call_info& info, const Shape& shape,
                      MakePlan make_plan, const T* input, T* output, const Op& op)
      : base(c, engine, info),
        shape_(shape),
        plan_(make_plan(shape_.get())),
        op_(op),
        mem_{input, output, scratch_.reserve<T>(plan_->scratch_elems())} {}

  /// Becomes the operation of a new call, keeping its storage: the round's
  /// working vectors, the scratch memory and the shape's arrays.
  template <class MakePlan>
  void rebind(const communicator& c, progress_engine& engine, const call_info& info, const Shape& shape,
              MakePlan make_plan, const T* input, T* output, const Op& op) {
    operation::rebind(c, engine, info);
    shape_.assign(shape);
    plan_.emplace(make_plan(shape_.get()));
    op_.emplace(op);
    mem_ = {input, output, scratch_.reserve<T>(plan_->scratch_elems())};
  }

private:
  round_runner<T, Op> runner() {
    round_runner<T, Op> r{this->comm().native(), this->tag_, mem_, *op_, steps_, requests_};
    r.keep_failures(run_failure_, statuses_);
    return r;
  }
  bool post_first() override {
    run_failure_ = nullptr;
    return runner().post_first(*plan_, this->posted_);
  }
  bool advance_rounds() override { return runner().advance(*plan_, this->round_, this->posted_); }
  void run_rounds() override {
    run_failure_ = nullptr;
    runner().run(*plan_);
  }
  void abandon_messages() noexcept override { runner().abandon_round(); }

  owned_shape<Shape> shape_;
  std::optional<Plan> plan_;  // rebuilt in place by rebind(): a plan may refer to shape_
  std::optional<Op> op_;      // likewise: an op need not be assignable
  scratch_block scratch_;
  buffers<T> mem_;
  std::vector<step> steps_;
  std::vector<MPI_Request> requests_;
  std::vector<MPI_Status> statuses_;
  std::exception_ptr run_failure_;  ///< this run's first failure (round_runner::keep_failures)
};

/// An operation for one call; `make_plan(shape)` builds the plan from the
/// operation's own copy of the shape. The thread's retired operation of the
/// same kind is reused if it has one, so a nonblocking call that is repeated
/// allocates nothing.
template <class T, class Op, class Shape, class MakePlan>
std::unique_ptr<operation> make_operation(const communicator& c, progress_engine& engine, const call_info& info,
                                          const Shape& shape, MakePlan make_plan, const T* input, T* output,
                                          const Op& op) {
  using Concrete = scheduled_operation<T, Op, Shape, decltype(make_plan(shape))>;
  if (std::unique_ptr<Concrete> reused = std::move(Concrete::parked())) {
    reused->rebind(c, engine, info, shape, make_plan, input, output, op);
    return reused;
  }
  return std::make_unique<Concrete>(c, engine, info, shape, make_plan, input, output, op);
}

}  // namespace hpcoll::detail
