// SPDX-License-Identifier: BSD-3-Clause
// How often each schedule ran on a communicator: counted by every run of a
// plan (blocking, nonblocking, persistent), printed by rank 0 when the
// communicator is freed under HPCOLL_VERBOSE=1.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "../communicator.hpp"
#include "../environment.hpp"
#include "../insert_only_map.hpp"

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

  /// One more run of info.schedule: no lock (the multicast's senders may count at once).
  void count(const call_info& info) { counter(info).fetch_add(1, std::memory_order_relaxed); }
  /// The counter of info.schedule, made on first use; it lives as long as the communicator.
  std::atomic<std::uint64_t>& counter(const call_info& info) {
    const key k{info.collective, info.schedule, info.dispatched};
    return counters_.add(k, hash(k), 0);
  }
  /// By collective, then schedule.
  std::vector<schedule_count> counts() const {
    std::vector<schedule_count> out;
    counters_.for_each([&](const key& k, const std::atomic<std::uint64_t>& calls) {
      out.push_back({k.collective, *k.schedule, k.dispatched, calls.load(std::memory_order_relaxed)});
    });
    std::sort(out.begin(), out.end(), [](const schedule_count& a, const schedule_count& b) {
      return std::tie(a.collective, a.schedule, a.dispatched) < std::tie(b.collective, b.schedule, b.dispatched);
    });
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

  struct key {
    std::string_view collective;
    const std::string* schedule;  // one string per schedule (and per candidate): compared by address
    bool dispatched;
    friend bool operator==(const key&, const key&) = default;
  };
  static std::size_t hash(const key& k) {
    return (reinterpret_cast<std::uintptr_t>(k.schedule) >> 5) ^ (k.collective.size() << 3) ^ k.dispatched;
  }

  int rank_, size_;
  insert_only_map<key, std::atomic<std::uint64_t>, 128> counters_;
};

/// Counts a blocking run on c of info's schedule from the call site Site (a
/// collective of one schedule policy, so info.collective and info.dispatched
/// are the same on every call): the calling thread keeps the counter it added
/// to last, so a repeated call adds without looking it up. It adds by a
/// plain load and store: the collectives of a communicator are called one at
/// a time (MPI orders them; the program orders those of several threads, as
/// their tags rely on), and an atomic add (x86's lock add) is a full fence,
/// which would hold every call until the transport's stores to the peer's
/// shared memory have left the core. Atomic still, so that counts() may read
/// it from any thread.
template <class Site>
void count_run(const communicator& c, const call_info& info) {
  struct last_counter {
    std::uint64_t communicator = 0;
    const std::string* schedule = nullptr;
    std::atomic<std::uint64_t>* counter = nullptr;
  };
  thread_local last_counter last;
  if (last.communicator != c.serial() || last.schedule != info.schedule) [[unlikely]]
    last = {c.serial(), info.schedule, &c.service<schedule_counters>().counter(info)};
  last.counter->store(last.counter->load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

}  // namespace detail

/// Which schedule ran how often on communicator c (also printed by rank 0
/// when the communicator is freed, with HPCOLL_VERBOSE=1).
inline std::vector<schedule_count> schedule_counts(const communicator& c) {
  return c.service<detail::schedule_counters>().counts();
}

}  // namespace hpcoll
