// How often each schedule ran on a communicator: counted by every run of a
// plan (blocking, nonblocking, persistent), printed by rank 0 when the
// communicator is freed under HPCOLL_VERBOSE=1.
#pragma once

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "../communicator.hpp"
#include "../environment.hpp"

namespace hpcoll {

/// How often a schedule ran for a collective on one communicator.
struct schedule_count {
  std::string_view collective;
  std::string schedule;
  bool dispatched;  ///< chosen by schedule::automatic (else named by the template argument)
  std::uint64_t calls;
};

namespace detail {

/// Which collective and schedule a run is, for its errors and its counter.
struct call_info {
  std::string_view collective;
  const std::string* schedule;  ///< a name that lives as long as the program
  bool dispatched = false;      ///< chosen by schedule::automatic
};

class schedule_counters final : public communicator_service {
public:
  explicit schedule_counters(const communicator_facts& f) : rank_(f.rank), size_(f.size) {}
  ~schedule_counters() override {
    if (verbose() && rank_ == 0) print();
  }

  /// One more run of info.schedule.
  void count(const call_info& info) {
    const std::lock_guard lock(mutex_);
    for (counter& c : counters_)
      if (c.schedule == info.schedule && c.collective == info.collective && c.dispatched == info.dispatched) {
        ++c.calls;
        return;
      }
    counters_.push_back({info.collective, info.schedule, info.dispatched, 1});
  }
  std::vector<schedule_count> counts() const {
    const std::lock_guard lock(mutex_);
    std::vector<schedule_count> out;
    for (const counter& c : counters_) out.push_back({c.collective, *c.schedule, c.dispatched, c.calls});
    return out;
  }

private:
  void print() const {
    const std::vector<schedule_count> all = counts();
    if (all.empty()) return;
    std::fprintf(stderr, "hpcoll: schedules run on a communicator of %d ranks:\n", size_);
    for (const schedule_count& c : all)
      std::fprintf(stderr, "  %-22.*s %-60s %10llu calls%s\n", static_cast<int>(c.collective.size()),
                   c.collective.data(), c.schedule.c_str(), static_cast<unsigned long long>(c.calls),
                   c.dispatched ? " (dispatched)" : "");
  }

  struct counter {
    std::string_view collective;
    const std::string* schedule;
    bool dispatched;
    std::uint64_t calls;
  };
  int rank_, size_;
  mutable std::mutex mutex_;
  std::vector<counter> counters_;
};

}  // namespace detail

/// Which schedule ran how often on communicator c (also printed by rank 0
/// when the communicator is freed, with HPCOLL_VERBOSE=1).
inline std::vector<schedule_count> schedule_counts(const communicator& c) {
  return c.service<detail::schedule_counters>().counts();
}

}  // namespace hpcoll
