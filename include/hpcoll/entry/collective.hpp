// SPDX-License-Identifier: BSD-3-Clause
// The one skeleton every collective entry point runs:
//
//   1. static checks        element type, op, the schedule policy (check<Shape, Commutative>)
//   2. deduction            Coll::prepare(c, args...) -> prepared_call: shape, buffers, op
//   3. argument checks      ... and the first problem with them (prepared_call::args)
//   4. choose (+ agree)     schedule_policy<S>::choose; in checked mode the ranks agree first
//   5. build and run        choice.plan(shape), now (blocking: a repeated call replays the plan
//                           recorded by the first) or as a request (start, persistent)
//   6. error hook           a failure below the collective is renamed after collective and schedule
//
// A collective object derives from collective_interface and provides its
// `prepare` overloads (and, for the v-collectives, `count_problem`, the
// checked-mode comparison of counts across ranks); the interface gives it
// coll(c, ...), coll.start([policy,] c, ...) and Coll::persistent([policy,] c, ...).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../communicator.hpp"
#include "../datatype.hpp"
#include "../error.hpp"
#include "../exec/counters.hpp"
#include "../exec/executor.hpp"
#include "../exec/manual_engine.hpp"
#include "../exec/operation.hpp"
#include "../exec/recorded_plan.hpp"
#include "../exec/topology.hpp"
#include "../op.hpp"
#include "../policies.hpp"
#include "../request.hpp"
#include "../schedule/properties.hpp"
#include "../select/policy.hpp"
#include "agree.hpp"
#include "arguments.hpp"

namespace hpcoll::detail {

/// Where a collective's entry points keep the counts and displacements they
/// convert (from another integer type) or build (packed displacements): the
/// calling thread's vectors, reused by its next call of the collective, so
/// that a repeated call allocates nothing. A call's shape points into them
/// until the call returns; a request keeps a copy of its own (owned_shape).
template <class Shape, std::size_t Kept>
std::array<std::vector<std::size_t>, Kept>& kept_storage() {
  if constexpr (Kept == 0) {
    static std::array<std::vector<std::size_t>, 0> none;
    return none;
  } else {
    thread_local std::array<std::vector<std::size_t>, Kept> storage;
    return storage;
  }
}

/// One call of a collective as its entry point deduced and checked it: the
/// shape, the buffers, the op, the first problem with the arguments and what
/// the ranks must agree on. `kept` holds counts and displacements the entry
/// point converted or built, which the shape's spans point to. Entry points
/// declare one and fill its members (an aggregate initialisation would clear
/// the whole object first, on every call).
template <class Shape, class T, class Op = no_op, std::size_t Kept = 0>
struct prepared_call {
  using shape_type = Shape;
  using value_type = T;
  using op_type = Op;

  Shape shape;
  const T* input = nullptr;
  T* output = nullptr;
  Op op{};
  argument_check args{};
  call_signature sig{};
  std::array<std::vector<std::size_t>, Kept>& kept = kept_storage<Shape, Kept>();

  /// What every entry point sets once its arguments are known (op, args and kept apart).
  void set(const Shape& call_shape, const T* in, T* out, const call_signature& signature) {
    shape = call_shape;
    input = in;
    output = out;
    sig = signature;
  }
};

/// Step 4 when the ranks must agree first (checked mode) or a problem is
/// known: every problem (the arguments', the thread support of a progress
/// policy, the choice's) is raised before any message, on every rank in
/// checked mode (which first compares the calls across ranks).
template <class Coll, class S, class Check, class Progress, bool Blocking, class Call>
[[gnu::cold]] auto choose_checked(const communicator& c, const Call& call) {
  using Shape = typename Call::shape_type;
  using T = typename Call::value_type;
  using policy = schedule_policy<S>;
  std::string problem(call.args.problem());
  if (problem.empty()) problem = engine_of<Progress>::unavailable();
  decltype(policy::template choose<typename Call::op_type, T, Blocking>(c, call.shape)) choice{};
  const std::string* schedule = &schedule_name_of<S>();
  if (problem.empty()) {
    try {
      choice = policy::template choose<typename Call::op_type, T, Blocking>(c, call.shape);
      schedule = &choice.schedule();
    } catch (const error& e) {
      if (!Check::enabled()) throw;
      problem = problem_of(e);  // raised on every rank once they have agreed
    }
  }
  if (Check::enabled()) {
    agree(c, Shape::name, *schedule, problem, call.sig, static_cast<std::int64_t>(sizeof(T)));
    if constexpr (requires { Coll::count_problem(c, call.shape); })
      agree_no_problem(c, Shape::name, *schedule, Coll::count_problem(c, call.shape));
  } else if (!problem.empty()) {
    throw error(Shape::name, *schedule, problem);
  }
  return choice;
}

/// Steps 1 and 4 of the skeleton: the compile-time checks, then the schedule
/// policy's choice (inlined into the entry point, as the run is). Blocking:
/// the call runs now (run_blocking), not through a request.
template <class Coll, class S, class Check, class Progress, bool Blocking, class Call>
[[gnu::always_inline]] inline auto choose(const communicator& c, const Call& call) {
  using Shape = typename Call::shape_type;
  using T = typename Call::value_type;
  using Op = typename Call::op_type;
  using policy = schedule_policy<S>;
  static_assert(requires { sizeof(policy); },
                "hpcoll: the default schedule, schedule::automatic, chooses at run time; include "
                "<hpcoll/select/automatic.hpp> (or <hpcoll/hpcoll.hpp>) to use it");
  static_assert(transmittable<T>, "hpcoll: the element type must be trivially copyable");
  constexpr bool reduces = !std::is_same_v<Op, no_op>;
  if constexpr (reduces) static_assert(reduction_for<Op, T>, "hpcoll: the op cannot combine two elements of this type");
  policy::template check<Shape, !reduces || is_commutative_v<Op>>();

  static_assert(requires { sizeof(engine_of<Progress>); },
                "hpcoll: progress::thread and progress::offload need <hpcoll/progress.hpp> (or <hpcoll/hpcoll.hpp>)");
  // The common case, unchecked and nothing wrong: the policy's choice alone
  // (a failing choice throws as it would in choose_checked).
  if (!Check::enabled() && call.args.ok() && engine_of<Progress>::unavailable().empty())
    return policy::template choose<Op, T, Blocking>(c, call.shape);
  return choose_checked<Coll, S, Check, Progress, Blocking>(c, call);
}

template <class Call, class Choice>
call_info info_of(const Choice& choice) {
  return {Call::shape_type::name, &choice.schedule(), Choice::dispatched};
}

/// Gives a node-aware schedule's call the communicator's node layout (learnt
/// on the first such call; a bad HPCOLL_NODE_SIZE or HPCOLL_NODE_LAYOUT is
/// raised here, on every rank, before any message). Other schedules' calls
/// are left as they are. Returns the call it was given (a temporary, which
/// lives to the end of the entry point's full expression).
template <class S, class Call>
[[gnu::always_inline]] inline Call&& with_nodes(const communicator& c, Call&& call) {
  if constexpr (uses_node_layout<S> && requires { call.shape.nodes; }) {
    try {
      call.shape.nodes = node_layout_of(c);
    } catch (const error& e) {
      throw named(e, std::remove_cvref_t<Call>::shape_type::name, schedule_name_of<S>());
    }
  }
  return std::forward<Call>(call);
}

/// Blocking: choose, build the plan, run it now. Inlined into the call
/// operator, so a blocking call has no frame of its own before the executor.
template <class Coll, class S, class Check, class Call>
[[gnu::always_inline]] inline void run_blocking(const communicator& c, const Call& call) {
  const int tag = c.next_tag();  // drawn before any check can throw: every rank keeps the same sequence
  const auto choice = choose<Coll, S, Check, progress::manual, true>(c, call);
  const call_info info = info_of<Call>(choice);
  try {
    execute_choice(c.native(), mailboxes_of(c), tag, choice, call.shape, call.input, call.output, call.op);
  } catch (const error& e) {
    throw named(e, info.collective, *info.schedule);
  }
  count_run<Coll>(c, info);
}

/// The operation of a nonblocking or persistent call: it owns a copy of the
/// shape and builds the chosen schedule's plan from it.
template <class Progress, class Call, class Choice>
std::unique_ptr<operation> operation_of(const communicator& c, const Call& call, const Choice& choice) {
  return make_operation(
      c, engine_of<Progress>::get(), info_of<Call>(choice), call.shape,
      [choice](const typename Call::shape_type& s) { return choice.plan(s); }, call.input, call.output, call.op);
}

/// Nonblocking: choose, build, post the first round; the request completes the run.
template <class Coll, class S, class Check, class Progress, class Call>
request start(const communicator& c, const Call& call) {
  const int tag = c.next_tag();
  const auto choice = choose<Coll, S, Check, Progress, false>(c, call);
  std::unique_ptr<operation> run = operation_of<Progress>(c, call, choice);
  run->engine().launch(*run, tag);
  run->count_run();
  return request(std::move(run));
}

/// Persistent: choose and build once; each start() of the request draws its tag and runs.
template <class Coll, class S, class Check, class Progress, class Call>
persistent_request persistent(const communicator& c, const Call& call) {
  const auto choice = choose<Coll, S, Check, Progress, false>(c, call);
  return persistent_request(operation_of<Progress>(c, call, choice));
}

/// A request outlives the call that makes it, so its buffers must too: a
/// range argument of a nonblocking or persistent form must be an lvalue or a
/// view, never a temporary container.
template <class... Args>
constexpr void check_outlives() {
  static_assert((... && (!input_range<std::remove_cvref_t<Args>> || std::is_lvalue_reference_v<Args> ||
                         std::ranges::enable_borrowed_range<std::remove_cvref_t<Args>>)),
                "hpcoll: a nonblocking or persistent operation keeps using its ranges after the call returns; pass "
                "lvalues or views (std::span), not temporary containers");
}

/// The entry points of a collective object Coll<S, Check, Progress> (which
/// befriends this class and provides `prepare`):
///   coll(c, args...)                         blocking
///   coll.start([policy,] c, args...)         nonblocking: an hpcoll::request
///   Coll::persistent([policy,] c, args...)   an hpcoll::persistent_request
template <class Coll, class S, class Check, class Progress>
struct collective_interface {
  template <class... Args>
  void operator()(const communicator& c, Args&&... args) const {
    run_blocking<Coll, S, Check>(c, with_nodes<S>(c, Coll::prepare(c, std::forward<Args>(args)...)));
  }

  template <class... Args>
  request start(const communicator& c, Args&&... args) const {
    return start(Progress{}, c, std::forward<Args>(args)...);
  }
  template <progress_policy P, class... Args>
  request start(P, const communicator& c, Args&&... args) const {
    check_outlives<Args...>();
    return detail::start<Coll, S, Check, P>(c, with_nodes<S>(c, Coll::prepare(c, std::forward<Args>(args)...)));
  }

  template <class... Args>
  static persistent_request persistent(const communicator& c, Args&&... args) {
    return persistent(Progress{}, c, std::forward<Args>(args)...);
  }
  template <progress_policy P, class... Args>
  static persistent_request persistent(P, const communicator& c, Args&&... args) {
    check_outlives<Args...>();
    return detail::persistent<Coll, S, Check, P>(c, with_nodes<S>(c, Coll::prepare(c, std::forward<Args>(args)...)));
  }
};

}  // namespace hpcoll::detail
