// SPDX-License-Identifier: BSD-3-Clause
// How a call that hpcoll serves runs: the blocking form runs the collective
// at once and unpacks its output; the nonblocking form starts it and keeps
// what it needs until it completes (its request, its stage, the datatypes and
// the unpacking), in a pending_collective that a generalized request stands for.
#pragma once

#include <mpi.h>

#include <atomic>
#include <functional>
#include <utility>
#include <vector>

#include <hpcoll/communicator.hpp>
#include <hpcoll/request.hpp>

#include "staging.hpp"

namespace hpcoll::pmpi {

/// A served nonblocking collective, from its start to the MPI_Wait or
/// MPI_Test that frees its MPI_Request.
struct pending_collective {
  explicit pending_collective(const communicator& served_on) : on(&served_on) {}
  pending_collective(const pending_collective&) = delete;
  pending_collective& operator=(const pending_collective&) = delete;
  ~pending_collective() {
    run = {};  // waits for a run still in flight: it may use the stage and the types
    release_types();
  }

  /// Frees the held duplicates, once the run is done with them: not from a
  /// generalized request's callbacks, inside which MPICH forbids MPI calls
  /// that take its lock.
  void release_types() noexcept {
    for (MPI_Datatype& t : held_types) PMPI_Type_free(&t);
    held_types.clear();
  }

  const communicator* on;
  hpcoll::request run;
  stage staged;
  std::function<void()> on_completion;  ///< unpacks a staged output
  std::vector<MPI_Datatype> held_types;  ///< duplicates, valid even if the program frees its own meanwhile
  MPI_Request handle = MPI_REQUEST_NULL;
  int error_code = MPI_SUCCESS;  ///< what the run's failure became (its MPI_Error_string is hpcoll's message)
  std::atomic<bool> freed{false};  ///< MPI has freed the request (its free function ran)
};

/// The stage of the thread's blocking calls, reused from call to call.
stage& thread_stage();

class served_call {
public:
  /// The blocking form.
  served_call() noexcept = default;
  /// The nonblocking form, kept in `p`.
  explicit served_call(pending_collective& p) noexcept : pending_(&p) {}

  /// Where the call stages the items of a datatype that is not dense (only
  /// then is the thread's stage reached: a thread-local object costs a check).
  stage& staged() const { return pending_ ? pending_->staged : thread_stage(); }

  /// Runs collective `Coll` (hpcoll::Bcast<>, ...) with `args`, or starts it.
  template <class Coll, class... Args>
  void run(const communicator& c, Args&&... args) const {
    if (pending_) pending_->run = Coll{}.start(c, std::forward<Args>(args)...);
    else Coll{}(c, std::forward<Args>(args)...);
  }

  /// `f()` once the collective has ended: at once for the blocking form.
  template <class F>
  void then(F&& f) const {
    if (pending_) pending_->on_completion = std::forward<F>(f);
    else f();
  }

  /// A datatype then() may use: the program's own for the blocking form, a
  /// duplicate for the nonblocking form (MPI lets a program free a datatype
  /// while an operation that uses it is pending).
  MPI_Datatype hold(MPI_Datatype type) const {
    if (!pending_) return type;
    MPI_Datatype duplicate = MPI_DATATYPE_NULL;
    check_mpi(PMPI_Type_dup(type, &duplicate), "duplicating the datatype of a nonblocking collective failed");
    pending_->held_types.push_back(duplicate);
    return duplicate;
  }

private:
  pending_collective* pending_ = nullptr;
};

}  // namespace hpcoll::pmpi
