// SPDX-License-Identifier: BSD-3-Clause
// The engines with a thread of their own: the progress thread
// (progress::thread) and the offload worker (progress::offload). Both need
// MPI_THREAD_MULTIPLE.
#pragma once

#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include "../error.hpp"
#include "../policies.hpp"
#include "manual_engine.hpp"
#include "operation.hpp"

namespace hpcoll::detail {

/// Whether MPI supports the background thread of progress::thread or
/// progress::offload: empty, or a problem naming what is missing.
inline std::string thread_support_problem(const char* policy) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided >= MPI_THREAD_MULTIPLE) return {};
  const char* level = provided == MPI_THREAD_SINGLE       ? "MPI_THREAD_SINGLE"
                      : provided == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
                                                          : "MPI_THREAD_SERIALIZED";
  return std::string(policy) + " calls MPI from a background thread and needs MPI_THREAD_MULTIPLE, but MPI provides " + level +
         "; initialise MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...)";
}

/// A background thread started on first use and, if asked, pinned to a CPU.
class background_thread {
public:
  /// Starts `loop(stop_token)` unless it runs already; if pinning fails the
  /// new thread is stopped again and the error raised.
  template <class Loop>
  void ensure_started(Loop loop, int cpu, const char* who) {
    const std::lock_guard lock(mutex_);
    if (thread_.joinable()) return;
    std::jthread started(std::move(loop));
    pin(started, cpu, who);
    thread_ = std::move(started);
  }
  bool started() {
    const std::lock_guard lock(mutex_);
    return thread_.joinable();
  }

private:
  static void pin([[maybe_unused]] std::jthread& t, int cpu, const char* who) {
    if (cpu < 0) return;
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
    if (cpu >= CPU_SETSIZE || pthread_setaffinity_np(t.native_handle(), sizeof(set), &set) != 0)
      throw error("", "", std::string(who) + ": cannot pin the thread to CPU " + std::to_string(cpu));
#else
    throw error("", "", std::string(who) + ": CPU pinning is only supported on Linux");
#endif
  }

  std::mutex mutex_;
  std::jthread thread_;
};

/// Settings of the progress thread (hpcoll::progress::configure).
struct thread_settings {
  int cpu = -1;  ///< pin the thread to this CPU (-1: not pinned)
  /// Pause between sweeps over the operations in flight: zero yields the CPU
  /// and sweeps again at once (lowest latency); a pause leaves more CPU to
  /// the application when the progress thread shares a core with it.
  std::chrono::microseconds poll_interval{0};
};

/// progress::thread: one background thread per process sweeps every
/// operation in flight; it sleeps while there is none.
class progress_thread final : public progress_engine, public operation_list {
public:
  static progress_thread& instance() {
    static progress_thread engine;
    return engine;
  }
  /// Before the first operation only.
  static void configure(const thread_settings& s) {
    progress_thread& e = instance();
    if (e.thread_.started())
      throw error("", "", "progress::configure: the progress thread is already running; configure it before the first "
                          "request that uses progress::thread");
    const std::lock_guard lock(e.mutex_);
    e.settings_ = s;
  }
  void ensure_started() {
    thread_.ensure_started([this](std::stop_token stop) { loop(stop); }, settings_.cpu, "progress::thread");
  }
  void add(operation* op) {
    operation_list::add(op);
    wake_.notify_one();
  }
  /// The issuing thread posts the first round; the progress thread the rest.
  void launch(operation& op, int tag) override {
    ensure_started();
    op.start(tag);
    if (op.post_first_round()) op.finish();
    else add(&op);
  }
  void drive(const operation& op) override {
    if (!op.done()) try_advance();
  }
  /// A waiting thread has nothing else to do: it sweeps too instead of
  /// sleeping until the progress thread gets a core and finishes the run.
  void await(const operation& op) override {
    while (!op.done())
      if (!try_advance() || !op.done()) std::this_thread::yield();
    settle();
  }
  /// One sweep on behalf of a waiting thread, unless the progress thread is
  /// sweeping right now; false if it was.
  bool try_advance() {
    const std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    advance_locked(MPI_COMM_NULL);
    return true;
  }

private:
  void loop(std::stop_token stop) {
    std::unique_lock lock(mutex_);
    while (!stop.stop_requested()) {
      if (active_.empty()) {
        wake_.wait(lock, stop, [&] { return !active_.empty(); });
        continue;
      }
      advance_locked(MPI_COMM_NULL);
      if (active_.empty()) continue;
      lock.unlock();
      if (settings_.poll_interval.count() > 0)
        std::this_thread::sleep_for(settings_.poll_interval);
      else
        std::this_thread::yield();
      lock.lock();
    }
  }

  thread_settings settings_;
  std::condition_variable_any wake_;  // an operation was added
  background_thread thread_;          // last member: stopped and joined before the rest goes
};

/// Settings of the offload worker (hpcoll::progress::configure).
struct offload_settings {
  int cpu = -1;                     ///< pin the worker to this CPU (-1: not pinned)
  std::size_t queue_capacity = 64;  ///< requests waiting at most; start() blocks while it is full
};

/// progress::offload (TCC style): a worker thread runs the queued operations
/// one at a time, in issue order, with the blocking executor. The queue is a
/// fixed ring, so submitting allocates nothing; a full queue makes the issuing
/// thread wait for a free slot.
class offload_worker final : public progress_engine {
public:
  static offload_worker& instance() {
    static offload_worker worker;
    return worker;
  }
  /// Before the first operation only.
  static void configure(const offload_settings& s) {
    offload_worker& w = instance();
    if (w.thread_.started())
      throw error("", "", "progress::configure: the offload worker is already running; configure it before the first "
                          "request that uses progress::offload");
    if (s.queue_capacity == 0)
      throw error("", "", "progress::configure: the offload queue needs a capacity of at least 1");
    const std::lock_guard lock(w.mutex_);
    w.settings_ = s;
  }
  void ensure_started() {
    {
      const std::lock_guard lock(mutex_);
      if (ring_.empty()) ring_.assign(settings_.queue_capacity, nullptr);
    }
    thread_.ensure_started([this](std::stop_token stop) { loop(stop); }, settings_.cpu, "progress::offload");
  }
  void submit(operation* op) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return queued_ < ring_.size(); });
    ring_[(head_ + queued_) % ring_.size()] = op;
    ++queued_;
    not_empty_.notify_one();
  }
  void settle() { const std::lock_guard lock(mutex_); }

  void launch(operation& op, int tag) override {
    ensure_started();
    op.start(tag);
    submit(&op);
  }
  /// The worker runs the operation to its end: nothing to help with.
  void drive(const operation&) override {}
  void await(const operation& op) override {
    op.await_done();
    settle();
  }

private:
  void loop(std::stop_token stop) {
    std::unique_lock lock(mutex_);
    while (true) {
      not_empty_.wait(lock, stop, [&] { return queued_ > 0; });
      if (queued_ == 0) return;  // stopped with nothing left to run
      operation* op = ring_[head_];
      head_ = (head_ + 1) % ring_.size();
      --queued_;
      not_full_.notify_one();
      lock.unlock();
      op->run();
      lock.lock();
      op->finish();
    }
  }

  std::mutex mutex_;
  std::condition_variable_any not_empty_;
  std::condition_variable not_full_;
  std::vector<operation*> ring_;
  std::size_t head_ = 0;
  std::size_t queued_ = 0;
  offload_settings settings_;
  background_thread thread_;  // last member: stopped and joined before the rest goes
};

template <>
struct engine_of<progress::thread> {
  static progress_engine& get() { return progress_thread::instance(); }
  static std::string unavailable() { return thread_support_problem("progress::thread"); }
};
template <>
struct engine_of<progress::offload> {
  static progress_engine& get() { return offload_worker::instance(); }
  static std::string unavailable() { return thread_support_problem("progress::offload"); }
};

}  // namespace hpcoll::detail
