// SPDX-License-Identifier: BSD-3-Clause
#include "nonblocking.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stop_token>
#include <thread>
#include <utility>
#include <vector>

#include <hpcoll/error.hpp>
#include <hpcoll/progress.hpp>

#include "interception.hpp"

namespace hpcoll::pmpi {
namespace {

/// Ends a run that has finished: raises nothing, records the error code of a
/// failure for query() instead; unpacks the output; then lets MPI complete
/// the request, after which the program may free it (and `p`) at any moment.
void finish(pending_collective& p) noexcept {
  try {
    p.run.wait();
    if (p.on_completion) p.on_completion();
  } catch (const error& e) {
    p.error_code = interception::get().error_code(e.what(), e.mpi_code());
  } catch (const std::exception& e) {
    p.error_code = interception::get().error_code(e.what(), MPI_SUCCESS);
  }
  p.release_types();
  PMPI_Grequest_complete(p.handle);
}

/// The status of a collective (MPI 4.0 §3.7.3's empty status) and its outcome.
int query(void* extra, MPI_Status* status) {
  const int code = static_cast<const pending_collective*>(extra)->error_code;
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = code;
  return code;
}

/// MPI frees the request: the run's record goes at the progress server's
/// next start or sweep (progress_server::collect_locked), which keeps it till then
/// so that MPI_Request_free can tell a served request from others.
int release(void* extra) {
  static_cast<pending_collective*>(extra)->freed.store(true, std::memory_order_release);
  return MPI_SUCCESS;
}

/// A collective cannot be cancelled (MPI 4.0 §6.12): nothing to do.
int cancel(void*, int) { return MPI_SUCCESS; }

/// Every served run in flight, advanced by two kinds of thread: the
/// program's own while it waits for or tests a request (the interposed
/// MPI_Wait and MPI_Test families below), at full speed; and the library's
/// progress thread, so that runs advance while the program computes or
/// blocks in another MPI call. The progress thread sweeps every
/// `poll_interval` while it finds runs that no waiting thread advances; it
/// sleeps longer and longer, up to `longest_sleep`, while it does not; after
/// `idle_wakes_before_sleeping` wake-ups without a run in flight it sleeps
/// until the next run starts. Each wake-up may take a core from the program
/// (a rank bound to one core, or more ranks than cores) for a context
/// switch: a run that starts wakes it only from that last sleep.
class progress_server {
public:
  static constexpr std::chrono::microseconds poll_interval{50};
  static constexpr std::chrono::microseconds longest_sleep{1000};
  static constexpr int idle_wakes_before_sleeping = 100;

  static progress_server& instance() {
    static progress_server server;
    return server;
  }

  /// Whether a served run is in flight (the completion calls that see none
  /// go straight to PMPI).
  bool busy() const noexcept { return in_flight_count_.load(std::memory_order_seq_cst) != 0; }

  void add(pending_collective* p) {
    {
      const std::lock_guard lock(mutex_);
      collect_locked();
      in_flight_.push_back(p);
      in_flight_count_.store(in_flight_.size(), std::memory_order_seq_cst);
      if (!thread_.joinable()) thread_ = std::jthread([this](std::stop_token stop) { loop(stop); });
    }
    // Seen after the count above (both sequentially consistent): either the
    // thread sees the run before it sleeps, or this sees it asleep.
    if (asleep_.load(std::memory_order_seq_cst)) {
      const std::lock_guard sleeping(sleep_mutex_);
      wake_.notify_one();
    }
  }

  /// While a thread waits in a completion call, it advances the runs: the
  /// progress thread leaves them to it (on a shared core, each of its
  /// sweeps would take the core from the waiter).
  class helping {
  public:
    explicit helping(progress_server& s) noexcept : server_(s) { server_.helpers_.fetch_add(1, std::memory_order_relaxed); }
    ~helping() { server_.helpers_.fetch_sub(1, std::memory_order_relaxed); }
    helping(const helping&) = delete;
    helping& operator=(const helping&) = delete;

  private:
    progress_server& server_;
  };

  /// One sweep by a thread that waits or tests, unless another thread is
  /// sweeping; then it yields the core, which that thread may need.
  void help() {
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (lock.owns_lock()) sweep_locked();
    else detail::yield_core();
  }

  /// A run that ended as it started, finished: kept as the sweeps keep theirs.
  void add_ended(pending_collective* p) {
    const std::lock_guard lock(mutex_);
    collect_locked();
    ended_.push_back(p);
    ended_count_.store(ended_.size(), std::memory_order_relaxed);
  }

  /// Whether `handle` is a served run's request that MPI has not freed, in
  /// flight or ended. Without the lock while no run is kept (a run is kept
  /// before its request reaches the program).
  bool serves(MPI_Request handle) {
    if (!busy() && ended_count_.load(std::memory_order_relaxed) == 0) return false;
    const auto is = [&](const pending_collective* p) {
      return p->handle == handle && !p->freed.load(std::memory_order_acquire);
    };
    const std::lock_guard lock(mutex_);
    return std::any_of(in_flight_.begin(), in_flight_.end(), is) || std::any_of(ended_.begin(), ended_.end(), is);
  }

  /// Sweeps until none of `requests` stands for a served run in flight,
  /// without testing the requests themselves: each MPI progress call may
  /// yield the core (Open MPI's mpi_yield_when_idle, on when ranks outnumber
  /// cores), and a test after every sweep made a waiter look half as often.
  /// A waiting call cannot return before those runs end anyway. The lock is
  /// let go between sweeps: another thread may start a run they depend on.
  void finish_runs_among(const MPI_Request* requests, int count) {
    const auto listed = [&](const pending_collective* p) {
      return std::find(requests, requests + count, p->handle) != requests + count;
    };
    while (true) {
      {
        std::unique_lock lock(mutex_, std::try_to_lock);
        if (lock.owns_lock()) {
          if (std::none_of(in_flight_.begin(), in_flight_.end(), listed)) return;
          sweep_locked();
          continue;
        }
      }
      detail::yield_core();
    }
  }

  void await(const communicator* c) {
    std::unique_lock lock(mutex_);
    ++awaiting_;
    changed_.wait(lock, [&] {
      return std::none_of(in_flight_.begin(), in_flight_.end(), [&](const pending_collective* p) { return p->on == c; });
    });
    --awaiting_;
  }

  void stop() {
    std::unique_lock lock(mutex_);
    collect_locked();
    if (!thread_.joinable()) return;
    std::jthread stopped = std::move(thread_);
    lock.unlock();
    {
      const std::lock_guard sleeping(sleep_mutex_);
      stopped.request_stop();
      wake_.notify_one();
    }
    stopped.join();
  }

private:
  /// Deletes the records of ended runs whose requests MPI has freed. Needs the lock.
  void collect_locked() {
    for (std::size_t i = 0; i < ended_.size();) {
      if (!ended_[i]->freed.load(std::memory_order_acquire)) {
        ++i;
        continue;
      }
      delete ended_[i];
      ended_[i] = ended_.back();
      ended_.pop_back();
    }
    ended_count_.store(ended_.size(), std::memory_order_relaxed);
  }

  /// Advances every run and finishes those that have ended. Needs the lock.
  void sweep_locked() {
    collect_locked();
    if (in_flight_.empty()) return;
    const hpcoll_scope scope;  // what hpcoll calls in the sweep goes to PMPI
    hpcoll::progress::poll();
    bool ended = false;
    for (std::size_t i = 0; i < in_flight_.size();) {
      pending_collective* p = in_flight_[i];
      if (!p->run.ready()) {
        ++i;
        continue;
      }
      in_flight_[i] = in_flight_.back();
      in_flight_.pop_back();
      finish(*p);
      ended_.push_back(p);
      ended = true;
    }
    if (!ended) return;
    ended_count_.store(ended_.size(), std::memory_order_relaxed);
    // Release: a thread that sees fewer runs in flight sees them kept as ended (serves).
    in_flight_count_.store(in_flight_.size(), std::memory_order_release);
    if (awaiting_ > 0) changed_.notify_all();
  }

  /// Never blocks on the sweep lock (whose holder would have to wake it).
  void loop(const std::stop_token& stop) {
    std::chrono::microseconds pause = poll_interval;
    int idle_wakes = 0;
    while (true) {
      {
        std::unique_lock sleeping(sleep_mutex_);
        if (!busy() && (stop.stop_requested() || idle_wakes >= idle_wakes_before_sleeping)) {
          if (stop.stop_requested()) return;
          asleep_.store(true, std::memory_order_seq_cst);
          wake_.wait(sleeping, [&] { return busy() || stop.stop_requested(); });
          asleep_.store(false, std::memory_order_relaxed);
          pause = poll_interval;
          idle_wakes = 0;
          continue;
        }
        wake_.wait_for(sleeping, pause);
      }
      if (!busy()) {
        ++idle_wakes;
        pause = longest_sleep;
        continue;
      }
      idle_wakes = 0;
      std::unique_lock lock(mutex_, std::defer_lock);
      if (helpers_.load(std::memory_order_relaxed) == 0 && lock.try_lock()) {
        sweep_locked();
        pause = poll_interval;
      } else {
        pause = std::min(2 * pause, longest_sleep);
      }
    }
  }

  std::mutex mutex_;  // the sweep lock: in_flight_ and the runs in it
  std::condition_variable changed_;  // a run ended (with mutex_)
  int awaiting_ = 0;                   // threads in await() (with mutex_)
  std::vector<pending_collective*> in_flight_;
  std::vector<pending_collective*> ended_;  // finished runs, until MPI frees their requests
  std::atomic<std::size_t> ended_count_{0};
  std::atomic<std::size_t> in_flight_count_{0};
  std::atomic<int> helpers_{0};  // threads in a completion call, advancing the runs
  std::mutex sleep_mutex_;
  std::condition_variable wake_;  // a run was added, or the thread is asked to stop (with sleep_mutex_)
  std::atomic<bool> asleep_{false};  // until the next run starts
  std::jthread thread_;
};

/// A blocking completion call (MPI_Wait, ...) while served runs are in
/// flight: first, for MPI_Wait and MPI_Waitall, the served runs among its
/// `count` `requests` finished by sweeps alone; then its nonblocking form
/// (MPI_Test, ...), `test(&done)`, repeated with a sweep before each, until
/// it completes something; once no served run is left, the blocking call
/// itself, `wait()`.
template <class Test, class Wait>
int wait_helping(Test&& test, Wait&& wait, const MPI_Request* requests = nullptr, int count = 0) {
  progress_server& server = progress_server::instance();
  if (inside_hpcoll || !server.busy()) return wait();
  const progress_server::helping helping(server);
  if (requests) server.finish_runs_among(requests, count);
  while (server.busy()) {
    server.help();
    int done = 0;
    const int code = test(&done);
    if (code != MPI_SUCCESS || done) return code;
  }
  return wait();
}

/// A test call (MPI_Test, ...): one sweep first, while served runs are in
/// flight (not for hpcoll's own calls: they are made in a sweep or a served call).
template <class Test>
int test_helping(Test&& test) {
  progress_server& server = progress_server::instance();
  if (!inside_hpcoll && server.busy()) server.help();
  return test();
}

}  // namespace

int complete_later(std::unique_ptr<pending_collective> pending, MPI_Request* request) {
  const int code = PMPI_Grequest_start(query, release, cancel, pending.get(), request);
  if (code != MPI_SUCCESS) return code;  // ~pending_collective waits for the run
  pending_collective* p = pending.release();
  p->handle = *request;
  // A run that ended as it started (one rank, nothing to move) needs no thread.
  if (p->run.ready()) {
    finish(*p);
    progress_server::instance().add_ended(p);
  } else {
    progress_server::instance().add(p);
  }
  return MPI_SUCCESS;
}

void await_collectives_on(const communicator* c) { progress_server::instance().await(c); }

void stop_progress() { progress_server::instance().stop(); }

}  // namespace hpcoll::pmpi

using namespace hpcoll::pmpi;

// The completion calls: while served runs are in flight, the calling thread
// advances them too (the progress thread sleeps between its sweeps).

HPCOLL_PMPI_EXPORT int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  return wait_helping([&](int* done) { return PMPI_Test(request, done, status); },
                      [&] { return PMPI_Wait(request, status); }, request, 1);
}

HPCOLL_PMPI_EXPORT int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  return wait_helping([&](int* done) { return PMPI_Testall(count, requests, done, statuses); },
                      [&] { return PMPI_Waitall(count, requests, statuses); }, requests, count);
}

HPCOLL_PMPI_EXPORT int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  return wait_helping([&](int* done) { return PMPI_Testany(count, requests, index, done, status); },
                      [&] { return PMPI_Waitany(count, requests, index, status); });
}

HPCOLL_PMPI_EXPORT int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                                    MPI_Status statuses[]) {
  return wait_helping(
      [&](int* done) {
        const int code = PMPI_Testsome(incount, requests, outcount, indices, statuses);
        *done = *outcount != 0;  // MPI_UNDEFINED when no request is active
        return code;
      },
      [&] { return PMPI_Waitsome(incount, requests, outcount, indices, statuses); });
}

HPCOLL_PMPI_EXPORT int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  return test_helping([&] { return PMPI_Test(request, flag, status); });
}

HPCOLL_PMPI_EXPORT int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  return test_helping([&] { return PMPI_Testall(count, requests, flag, statuses); });
}

HPCOLL_PMPI_EXPORT int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  return test_helping([&] { return PMPI_Testany(count, requests, index, flag, status); });
}

HPCOLL_PMPI_EXPORT int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                                    MPI_Status statuses[]) {
  return test_helping([&] { return PMPI_Testsome(incount, requests, outcount, indices, statuses); });
}

// MPI 4.0 §6.12: the request of a nonblocking collective cannot be freed
// (Open MPI raises MPI_ERR_REQUEST on MPI_COMM_WORLD). A served run's
// generalized request could be, and MPICH would then free its record while
// the run still uses it: refused the same way, the request left as it was,
// whether the run is in flight or has ended. (Open MPI refuses its own only
// in flight, so that an erroneous free fails or passes by timing.)
HPCOLL_PMPI_EXPORT int MPI_Request_free(MPI_Request* request) {
  if (inside_hpcoll || request == nullptr || !progress_server::instance().serves(*request))
    return PMPI_Request_free(request);
  return interception::get().fail(MPI_COMM_WORLD,
                                  "MPI_Request_free: the request of a nonblocking collective cannot be freed; "
                                  "wait for it or test it until it completes",
                                  MPI_ERR_REQUEST);
}

HPCOLL_PMPI_EXPORT int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  return test_helping([&] { return PMPI_Request_get_status(request, flag, status); });
}
