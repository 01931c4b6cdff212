// SPDX-License-Identifier: BSD-3-Clause
// What every interposed collective goes through: whether it is intercepted
// at all (HPCOLL_PMPI, HPCOLL_PMPI_COLLECTIVES, a call made by hpcoll
// itself), the communicator's hpcoll::communicator, the served / forwarded
// counts that HPCOLL_VERBOSE=1 prints at MPI_Finalize, and hpcoll's errors
// turned into MPI error codes.
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>

#include <hpcoll/communicator.hpp>
#include <hpcoll/error.hpp>

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
  nonblocking,        ///< the MPI_I… form, which the library does not serve yet
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

  void count(collective c, outcome o) noexcept {
    if (verbose_)
      counts_[static_cast<std::size_t>(c)][static_cast<std::size_t>(o)].fetch_add(1, std::memory_order_relaxed);
  }

  /// The communicator's hpcoll::communicator, made on first use (a collective
  /// call on `comm`) and kept as its attribute; nullptr for an intercommunicator.
  const communicator* communicator_of(MPI_Comm comm);

  /// The code a failure inside hpcoll becomes, after the communicator's
  /// error handler has run on it: a code of the class of the failed MPI call
  /// (MPI_ERR_OTHER where none failed) whose MPI_Error_string is `what`.
  int fail(MPI_Comm comm, const char* what, int mpi_code);

  /// At MPI_Finalize: the counts (HPCOLL_VERBOSE=1), then the communicators of
  /// MPI_COMM_WORLD and MPI_COMM_SELF and the keyval are freed.
  void finish();

private:
  interception();

  std::array<bool, collective_count> intercepted_{};
  bool verbose_ = false;
  int keyval_ = MPI_KEYVAL_INVALID;
  std::array<std::array<std::atomic<std::uint64_t>, outcome_count>, collective_count> counts_{};
};

/// Runs an interposed collective: `serve(communicator)` (under hpcoll_scope)
/// returns outcome::served when hpcoll ran the call, otherwise why not,
/// having run nothing; then `forward()` calls the PMPI function.
template <class Serve, class Forward>
int intercept(collective which, MPI_Comm comm, Serve&& serve, Forward&& forward) {
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
      result = serve(*c);
    }
  } catch (const error& e) {
    return state.fail(comm, e.what(), e.mpi_code());
  } catch (const std::exception& e) {
    return state.fail(comm, e.what(), MPI_SUCCESS);
  }
  state.count(which, result);
  return result == outcome::served ? MPI_SUCCESS : forward();
}

/// Runs the nonblocking form of a collective: the PMPI function, counted.
template <class Forward>
int forward_nonblocking(collective which, Forward&& forward) {
  interception& state = interception::get();
  state.count(which, inside_hpcoll            ? outcome::hpcoll_internal
                     : state.intercepts(which) ? outcome::nonblocking
                                               : outcome::switched_off);
  return forward();
}

}  // namespace hpcoll::pmpi
