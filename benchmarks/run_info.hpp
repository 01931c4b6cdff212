// SPDX-License-Identifier: BSD-3-Clause
// What the benchmark programs record about a run (when, and with which MPI), and what
// they share around it: the slowest rank's mean time of a call, the median of their
// samples, their main() and rank 0's errors told on every rank. Their command lines:
// options.hpp.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <ctime>
#include <exception>
#include <functional>
#include <new>
#include <string>
#include <vector>

namespace hpcoll_bench {

/// The current time in UTC, ISO 8601 ("2026-11-21T21:33:09Z").
inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// The first line of MPI_Get_library_version ("Open MPI v4.1.4, package: ...").
inline std::string mpi_library_version() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string v(version, static_cast<std::size_t>(length));
  if (const auto end = v.find_first_of("\r\n"); end != std::string::npos) v.resize(end);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\0')) v.pop_back();
  return v;
}

/// The median of v: the middle value, or the mean of the two middle ones (0 for none).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto middle = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), middle, v.end());
  if (v.size() % 2) return *middle;
  return (*std::max_element(v.begin(), middle) + *middle) / 2;
}

/// The slowest rank's mean time of `calls` calls of call(), in ns (the ranks start together).
inline double slowest_mean_ns(const std::function<void()>& call, int calls) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call();
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / calls;
  MPI_Allreduce(MPI_IN_PLACE, &ns, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return ns;
}

/// µs a call of call(): after 20 warm-up calls, the median of 5 of the slowest rank's means
/// over `calls` calls (the probes' measure).
inline double median_call_us(const std::function<void()>& call, int calls) {
  for (int i = 0; i < 20; ++i) call();
  std::vector<double> samples;
  for (int s = 0; s < 5; ++s) samples.push_back(slowest_mean_ns(call, calls) / 1000);
  return median(samples);
}

/// Rank 0's exit status rc, on every rank (after stdout is flushed): all ranks exit alike.
inline int rank0_status(int rc) {
  std::fflush(stdout);
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return rc;
}

/// Rank 0's problem (empty: none) on every rank of MPI_COMM_WORLD, each printing it as
/// "program: problem" on stderr; true if there was one. Every rank calls it at the same point.
inline bool failed_on_rank0(const char* program, std::string problem) {
  std::uint64_t length = problem.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (length == 0) return false;
  problem.resize(length);
  MPI_Bcast(problem.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::fprintf(stderr, "%s: %s\n", program, problem.c_str());
  std::fflush(stderr);
  return true;
}

/// Runs what() on rank 0 (only), turning what it throws into the problem text (for failed_on_rank0).
template <class What>
std::string on_rank0(int rank, What&& what) {
  if (rank != 0) return {};
  try {
    what();
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

namespace detail {

/// run(), then MPI_Finalize; an exception out of run() is printed as "program: what" and aborts
/// MPI_COMM_WORLD.
template <class Run>
int finish_run(const char* program, Run&& run) {
  int rc = 0;
  try {
    rc = run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return rc;
}

}  // namespace detail

/// main() of a benchmark program: MPI_Init, rc = run(argc, argv), MPI_Finalize, return rc; an
/// exception out of run() prints "program: what" and aborts.
inline int run_main(int argc, char** argv, const char* program, int (*run)(int, char**)) {
  MPI_Init(&argc, &argv);
  return detail::finish_run(program, [&] { return run(argc, argv); });
}

/// The same with MPI_Init_thread at `required`; run gets the level provided.
inline int run_main(int argc, char** argv, const char* program, int required, int (*run)(int, char**, int)) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, required, &provided);
  return detail::finish_run(program, [&] { return run(argc, argv, provided); });
}

}  // namespace hpcoll_bench
