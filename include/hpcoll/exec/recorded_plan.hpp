// SPDX-License-Identifier: BSD-3-Clause
// Blocking calls that repeat: the plan of a call is recorded once (every
// round's steps in one list) and replayed by later calls of the same shape,
// which then build no plan and emit no step. Small plans only: above a few
// dozen steps, building the plan costs little next to its messages.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <exception>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "../plan/plan.hpp"
#include "../plan/shape.hpp"
#include "arena.hpp"
#include "executor.hpp"
#include "owned_shape.hpp"

namespace hpcoll::detail {

/// Shapes a recorded plan can be found by: compared by value (same_call; a
/// v-collective's counts and displacements by content, since they may change
/// between calls at the same address).
template <class Shape>
concept recordable_shape = requires(const Shape& s) {
  { same_call(s, s) } -> std::convertible_to<bool>;
};

/// A plan's rounds, recorded: every step in one list, and each round's
/// steps with their summary.
class recorded_plan {
public:
  struct round {
    std::size_t first, count;  ///< its steps in the list
    round_summary summary;
  };

  /// Records `plan`; false when it has more than max_steps steps (what was
  /// recorded is then incomplete and must not be replayed). Empty steps (no
  /// message, an empty copy or reduction) are left out, so that the replay
  /// of an alltoallv of mostly empty blocks visits its messages only. So are
  /// the rounds that are left empty, and a round of local steps only becomes
  /// the prelude of the round after it (run first, before anything of that
  /// round is posted, as it ran before): a replay runs fewer rounds for the
  /// same steps in the same order, e.g. an allgather's own block copied in
  /// the round of its first exchange.
  template <class Plan>
  bool record(const Plan& plan, std::size_t max_steps) {
    steps_.clear();
    rounds_.clear();
    const int rounds = plan.rounds();
    std::size_t prelude = 0;  // local steps of the rounds just recorded, waiting for a round with messages
    for (int r = 0; r < rounds; ++r) {
      const std::size_t first = steps_.size();
      plan.round(r, step_sink(steps_, step_sink::empty_steps::skip));
      if (steps_.size() > max_steps) return false;
      const std::size_t count = steps_.size() - first;
      const bool local_only = std::all_of(steps_.begin() + static_cast<std::ptrdiff_t>(first), steps_.end(),
                                          [](const step& s) { return !s.is_comm(); });
      if (local_only && r + 1 < rounds) {
        prelude += count;
      } else if (count + prelude > 0) {
        // The prelude is kept in the summary until the summaries are made.
        rounds_.push_back({first - prelude, count + prelude, {.prelude = local_only ? 0 : prelude}});
        prelude = 0;
      }
    }
    // The summaries point at steps, which are all in place only now.
    for (round& r : rounds_) r.summary = round_summary::of(steps(r), r.summary.prelude);
    // A plan sized for every rank may leave this rank's steps without scratch
    // (an allreduce's partner result landing in the output): no lease then.
    const auto names_scratch = [](const step& s) {
      return s.a.buf == buffer::scratch || s.b.buf == buffer::scratch || s.dst.buf == buffer::scratch;
    };
    scratch_elems_ = std::any_of(steps_.begin(), steps_.end(), names_scratch) ? plan.scratch_elems() : 0;
    return true;
  }

  std::span<const round> rounds() const noexcept { return rounds_; }
  std::span<const step> steps(const round& r) const noexcept { return {steps_.data() + r.first, r.count}; }
  /// The plan's scratch, or none when no recorded step names it.
  std::size_t scratch_elems() const noexcept { return scratch_elems_; }

private:
  std::vector<step> steps_;
  std::vector<round> rounds_;
  std::size_t scratch_elems_ = 0;
};

/// The calling thread's recorded plans of one Choice (a named schedule, or
/// the dispatcher's choices for one collective) for one Shape: the last few
/// (alternative, shape) pairs, replaced round robin; plus the requests their
/// replay posts. A plan depends on the shape alone, so one recording
/// serves every communicator.
template <class Choice, class Shape>
class recorded_plans {
public:
  static constexpr std::size_t max_steps = 64;

  static recorded_plans& of_thread() {
    thread_local recorded_plans plans;
    return plans;
  }

  /// The plan of the given alternative and shape, recorded with build() the
  /// first time; null when it is too large to record.
  template <class Build>
  const recorded_plan* find(std::size_t alternative, const Shape& shape, Build&& build) {
    if (const entry& e = entries_[last_]; e.holds(alternative, shape)) [[likely]]
      return e.fits ? &e.plan : nullptr;
    return find_or_record(alternative, shape, build);
  }

  /// Held while a replay runs: a call made inside it on the same thread (by a
  /// user op) must not replace the plan being replayed, and records nothing.
  bool busy = false;
  std::vector<MPI_Request> requests;  ///< a replayed round's posted messages
  std::vector<MPI_Status> statuses;   ///< and their statuses

private:
  static constexpr std::size_t ways = 4;
  struct entry {
    bool used = false;
    bool fits = false;
    std::size_t alternative = 0;
    owned_shape<Shape> shape;
    recorded_plan plan;

    bool holds(std::size_t a, const Shape& s) const { return used && alternative == a && same_call(shape.get(), s); }
  };

  /// find() when the last plan found is not the one: the others, else a new recording.
  template <class Build>
  [[gnu::noinline]] const recorded_plan* find_or_record(std::size_t alternative, const Shape& shape, Build& build) {
    for (std::size_t i = 0; i < ways; ++i) {
      if (entries_[i].holds(alternative, shape)) {
        last_ = i;
        return entries_[i].fits ? &entries_[i].plan : nullptr;
      }
    }
    last_ = next_victim_;
    next_victim_ = (next_victim_ + 1) % ways;
    entry& e = entries_[last_];
    e.used = false;  // until recorded: build() may throw
    e.fits = e.plan.record(build(), max_steps);
    e.alternative = alternative;
    e.shape.assign(shape);
    e.used = true;
    return e.fits ? &e.plan : nullptr;
  }

  entry entries_[ways];
  std::size_t last_ = 0;
  std::size_t next_victim_ = 0;
};

/// Replays a recorded plan on this rank's buffers, blocking, as execute_mpi
/// runs a plan; `plans` holds it (busy meanwhile) and lends its requests.
template <class Plans, class T, class Op>
inline void replay(MPI_Comm comm, node_mailboxes* boxes, int tag, const recorded_plan& plan, Plans& plans,
                   const buffers<T>& mem, const Op& op) {
  struct hold {
    bool& busy;
    explicit hold(bool& b) : busy(b) { busy = true; }
    ~hold() { busy = false; }
  } held(plans.busy);
  std::exception_ptr failure;
  round_runner<T, Op> runner(comm, tag, mem, op, plans.requests);
  runner.keep_failures(failure, plans.statuses).through(boxes);
  for (const recorded_plan::round& r : plan.rounds()) runner.run_round(plan.steps(r), r.summary);
  runner.raise_failure();
}

/// Runs the plan `choice` builds for `shape` on this rank, blocking, as
/// execute_mpi does (`boxes` as there); a repeated call replays the plan
/// recorded by the first.
/// `choice` provides plan(shape) and alternative(), which of its plans it
/// builds (see select/policy.hpp).
template <class Choice, class Shape, class T, class Op>
inline void execute_choice(MPI_Comm comm, node_mailboxes* boxes, int tag, const Choice& choice, const Shape& shape,
                           const T* input, T* output, const Op& op) {
  if constexpr (recordable_shape<Shape>) {
    auto& plans = recorded_plans<Choice, Shape>::of_thread();
    if (!plans.busy) {
      if (const recorded_plan* plan = plans.find(choice.alternative(), shape, [&] { return choice.plan(shape); })) {
        // Most small plans need no scratch: no lease then.
        if (plan->scratch_elems() == 0)
          return replay(comm, boxes, tag, *plan, plans, buffers<T>(input, output, nullptr), op);
        const thread_lease<scratch_block> scratch;
        return replay(comm, boxes, tag, *plan, plans,
                      buffers<T>(input, output, scratch->template reserve<T>(plan->scratch_elems())), op);
      }
    }
  }
  execute_mpi(comm, boxes, tag, choice.plan(shape), input, output, op);
}

}  // namespace hpcoll::detail
