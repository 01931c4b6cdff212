// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::error — the one exception type of the library.
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hpcoll {

namespace detail {
/// The parts one after the other: the library's messages are built with one
/// call each (numbers through std::to_string), which keeps the code of its
/// error paths small in every translation unit.
inline std::string concat(std::initializer_list<std::string_view> parts) {
  std::size_t size = 0;
  for (std::string_view p : parts) size += p.size();
  std::string s;
  s.reserve(size);
  for (std::string_view p : parts) s += p;
  return s;
}
}  // namespace detail

/// Raised for bad arguments, unsupported (op, schedule) pairs, disagreement
/// between ranks (checked mode) and failed MPI calls. The message always names
/// the collective and the schedule, e.g.
/// "hpcoll::allreduce<ring>: output has 3 elements, input has 4".
class error : public std::runtime_error {
public:
  error(std::string_view collective, std::string_view schedule, std::string_view what,
        int mpi_code = 0)
      : std::runtime_error(format(collective, schedule, what)),
        collective_(collective), schedule_(schedule), mpi_code_(mpi_code) {}

  /// The collective that failed ("allreduce"), empty for library-level errors.
  const std::string& collective() const noexcept { return collective_; }
  /// The schedule's name ("ring"), empty when none was involved.
  const std::string& schedule() const noexcept { return schedule_; }
  /// The MPI error code when an MPI routine failed, 0 otherwise.
  int mpi_code() const noexcept { return mpi_code_; }

private:
  static std::string format(std::string_view collective, std::string_view schedule,
                            std::string_view what) {
    if (collective.empty()) return detail::concat({"hpcoll: ", what});
    if (schedule.empty()) return detail::concat({"hpcoll::", collective, ": ", what});
    return detail::concat({"hpcoll::", collective, "<", schedule, ">: ", what});
  }

  std::string collective_;
  std::string schedule_;
  int mpi_code_;
};

namespace detail {

/// The problem an hpcoll::error describes, without its "hpcoll::coll<sched>: " prefix.
inline std::string problem_of(const error& e) {
  const std::string what = e.what();
  return what.substr(what.find(": ") + 2);
}

/// An error raised below the collective layer (a failed MPI call has no
/// collective yet), renamed after the collective and schedule it happened in.
inline error named(const error& e, std::string_view collective, std::string_view schedule) {
  return e.collective().empty() ? error(collective, schedule, problem_of(e), e.mpi_code()) : e;
}

}  // namespace detail

}  // namespace hpcoll
