// SPDX-License-Identifier: BSD-3-Clause
// What every interposed collective goes through: whether it is intercepted
// at all (HPCOLL_PMPI, HPCOLL_PMPI_COLLECTIVES, a call made by hpcoll
// itself), the communicator's hpcoll::communicator, the served / forwarded
// counts that HPCOLL_VERBOSE=1 prints at MPI_Finalize, and hpcoll's errors
// turned into MPI error codes; the blocking forms run at once, the
// nonblocking ones behind an MPI_Request (nonblocking.hpp).
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>

#include <hpcoll/communicator.hpp>
#include <hpcoll/error.hpp>

#include "nonblocking.hpp"
#include "served_call.hpp"

/// The library's entry points: the only symbols it exports.
#define HPCOLL_PMPI_EXPORT extern "C" [[gnu::visibility("default")]]

namespace hpcoll::pmpi {

enum class collective : unsigned char {
  bcast, reduce, allreduce, gather, gatherv, scatter, allgather, allgatherv, reduce_scatter_block, alltoall,
  alltoallv
};
inline constexpr std::size_t collective_count = 11;

/// What became of a call: served by hpcoll, or forwarded to PMPI and why.
enum class outcome : unsigned char {
  served,
  switched_off,       ///< HPCOLL_PMPI=off, or not named in HPCOLL_PMPI_COLLECTIVES
  hpcoll_internal,    ///< made by hpcoll itself (building a communicator, checked mode)
  intercommunicator,
  user_op,            ///< not one of MPI's predefined reduction ops
  op_not_for_type,    ///< a predefined op MPI does not define on the type (MPI reports the error)
  datatype,           ///< reduced: not a type the library reduces; moved: an item too large to pack
  arguments,          ///< invalid or locally inconsistent arguments: MPI reports the error
  nonblocking,        ///< the MPI_I… form without MPI_THREAD_MULTIPLE, which its progress thread needs
};
inline constexpr std::size_t outcome_count = 9;

/// While a thread runs hpcoll, the MPI collectives hpcoll calls itself go to PMPI.
extern thread_local bool inside_hpcoll;

class hpcoll_scope {
public:
  hpcoll_scope() noexcept : outer_(inside_hpcoll) { inside_hpcoll = true; }
  ~hpcoll_scope() { inside_hpcoll = outer_; }
  hpcoll_scope(const hpcoll_scope&) = delete;
  hpcoll_scope& operator=(const hpcoll_scope&) = delete;

private:
  bool outer_;
};

/// The library's process-wide state, made at the first intercepted call
/// (after MPI_Init): the settings, read once, the attribute keyval, the counts.
class interception {
public:
  static interception& get();
  /// Whether get() has made the state (MPI_Finalize has nothing to free otherwise).
  static bool made() noexcept;

  bool intercepts(collective c) const noexcept { return intercepted_[static_cast<std::size_t>(c)]; }
  /// Whether the MPI_I… forms are served: MPI provides MPI_THREAD_MULTIPLE.
  bool serves_nonblocking() const noexcept { return serves_nonblocking_; }

  void count(collective c, outcome o) noexcept {
    if (verbose_)
      counts_[static_cast<std::size_t>(c)][static_cast<std::size_t>(o)].fetch_add(1, std::memory_order_relaxed);
  }

  /// The communicator's hpcoll::communicator, made on first use (a collective
  /// call on `comm`) and kept as its attribute; nullptr for an intercommunicator.
  const communicator* communicator_of(MPI_Comm comm);

  /// The code a failure inside hpcoll becomes: a code of the class of the
  /// failed MPI call (MPI_ERR_OTHER where none failed) whose MPI_Error_string is `what`.
  int error_code(const char* what, int mpi_code);
  /// error_code(), after the communicator's error handler has run on it.
  int fail(MPI_Comm comm, const char* what, int mpi_code);

  /// At MPI_Finalize: the served nonblocking runs in flight are waited for
  /// and the progress thread stopped; the counts (HPCOLL_VERBOSE=1); then the
  /// communicators of MPI_COMM_WORLD and MPI_COMM_SELF and the keyval are freed.
  void finish();

private:
  interception();

  std::array<bool, collective_count> intercepted_{};
  bool verbose_ = false;
  bool serves_nonblocking_ = false;
  int keyval_ = MPI_KEYVAL_INVALID;
  std::array<std::array<std::atomic<std::uint64_t>, outcome_count>, collective_count> counts_{};
};

/// The steps an interposed collective shares, blocking or not: `served`
/// gets the communicator's hpcoll::communicator (under hpcoll_scope) and
/// returns outcome::served when hpcoll ran the call, otherwise why not,
/// having run nothing; `forward()` calls the PMPI function then.
template <class Served, class Forward>
int intercept_with(collective which, MPI_Comm comm, Served&& served, Forward&& forward) {
  interception& state = interception::get();
  if (inside_hpcoll) [[unlikely]] {
    state.count(which, outcome::hpcoll_internal);
    return forward();
  }
  if (!state.intercepts(which) || comm == MPI_COMM_NULL) [[unlikely]] {
    state.count(which, state.intercepts(which) ? outcome::arguments : outcome::switched_off);
    return forward();
  }
  outcome result = outcome::served;
  try {
    const communicator* c = state.communicator_of(comm);
    if (!c) {
      result = outcome::intercommunicator;
    } else {
      const hpcoll_scope scope;
      result = served(*c);
    }
  } catch (const error& e) {
    return state.fail(comm, e.what(), e.mpi_code());
  } catch (const std::exception& e) {
    return state.fail(comm, e.what(), MPI_SUCCESS);
  }
  state.count(which, result);
  return result == outcome::served ? MPI_SUCCESS : forward();
}

/// Runs an interposed blocking collective: `serve(communicator, served_call&)`
/// runs it through the call, staged in the thread's stage.
template <class Serve, class Forward>
int intercept(collective which, MPI_Comm comm, Serve&& serve, Forward&& forward) {
  return intercept_with(
      which, comm,
      [&](const communicator& c) {
        return serve(c, served_call());
      },
      forward);
}

/// Runs an interposed nonblocking collective: `serve` as for intercept(), the
/// call started and kept until the MPI_Request set in `*request` completes.
template <class Serve, class Forward>
int intercept_nonblocking(collective which, MPI_Comm comm, MPI_Request* request, Serve&& serve, Forward&& forward) {
  interception& state = interception::get();
  if (!inside_hpcoll && state.intercepts(which) && !state.serves_nonblocking()) [[unlikely]] {
    state.count(which, outcome::nonblocking);
    return forward();
  }
  std::unique_ptr<pending_collective> pending;
  bool served = false;
  const int code = intercept_with(
      which, comm,
      [&](const communicator& c) {
        if (request == nullptr) return outcome::arguments;
        pending = std::make_unique<pending_collective>(c);
        const outcome result = serve(c, served_call(*pending));
        served = result == outcome::served;
        return result;
      },
      forward);
  if (!served || code != MPI_SUCCESS) return code;
  const int started = complete_later(std::move(pending), request);
  if (started != MPI_SUCCESS) return state.fail(comm, "MPI_Grequest_start failed", started);
  return MPI_SUCCESS;
}

}  // namespace hpcoll::pmpi
