// SPDX-License-Identifier: BSD-3-Clause
// The engine of progress::manual: operations advance only inside the calls
// that test, wait or poll (LibNBC's progress function).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "../policies.hpp"
#include "operation.hpp"

namespace hpcoll::detail {

/// Operations in flight and the lock of whoever advances them.
class operation_list {
public:
  void add(operation* op) {
    const std::lock_guard lock(mutex_);
    active_.push_back(op);
  }
  /// Takes and releases the lock: whoever finished an operation under it has
  /// let go of it by then.
  void settle() { const std::lock_guard lock(mutex_); }

protected:
  /// Advances every operation (of `only`, unless it is MPI_COMM_NULL) and
  /// drops those that end. Needs the lock.
  void advance_locked(MPI_Comm only) {
    for (std::size_t i = 0; i < active_.size();) {
      operation* op = active_[i];
      if ((only != MPI_COMM_NULL && op->comm().native() != only) || !op->advance()) {
        ++i;
        continue;
      }
      active_[i] = active_.back();
      active_.pop_back();
      op->finish();
    }
  }

  std::mutex mutex_;
  std::vector<operation*> active_;
};

/// progress::manual: advanced only by the threads that test, wait or poll;
/// each of them advances every manual operation of the process, so ranks
/// waiting in different orders never block each other.
class manual_engine final : public progress_engine, public operation_list {
public:
  static manual_engine& instance() {
    static manual_engine engine;
    return engine;
  }
  void advance(MPI_Comm only = MPI_COMM_NULL) {
    const std::lock_guard lock(mutex_);
    advance_locked(only);
  }

  /// The issuing thread posts the first round's messages itself, so they
  /// leave at once (LibNBC's start).
  void launch(operation& op, int tag) override {
    op.start(tag);
    if (op.post_first_round()) op.finish();
    else add(&op);
  }
  void drive(const operation& op) override {
    if (!op.done()) advance();
  }
  void await(const operation& op) override {
    // Alone in flight with all its messages posted, the run waits inside MPI
    // (MPI_Waitall): no other manual operation needs this thread meanwhile,
    // and MPI sees the last message complete within its own progress loop
    // rather than at the next poll.
    if (operation* alone = take_if_alone(op)) {
      if (alone->complete_posted()) {
        alone->finish();
        return;
      }
      add(alone);
    }
    // No yield of its own between attempts: each one polls MPI, whose
    // progress yields the core when idle if told to (Open MPI's
    // mpi_yield_when_idle, on when oversubscribed); a second yield per poll
    // made every waiter look half as often on shared cores.
    while (!op.done()) advance();
    settle();
  }

private:
  /// `op`, taken off the list, when it is the only operation in flight; else null.
  operation* take_if_alone(const operation& op) {
    const std::lock_guard lock(mutex_);
    if (active_.size() != 1 || active_.front() != &op) return nullptr;
    operation* alone = active_.front();
    active_.clear();
    return alone;
  }
};

template <>
struct engine_of<progress::manual> {
  static progress_engine& get() { return manual_engine::instance(); }
  static constexpr std::string_view unavailable() { return {}; }  // runs wherever MPI runs
};

}  // namespace hpcoll::detail
