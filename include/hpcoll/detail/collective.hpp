// What every collective entry point does after deducing its shape: check the
// arguments, agree across ranks in checked mode, build the plan, run it.
#pragma once

#include <mpi.h>

#include <concepts>
#include <cstdint>
#include <ranges>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "../check.hpp"
#include "../communicator.hpp"
#include "../datatype.hpp"
#include "../error.hpp"
#include "../op.hpp"
#include "../schedule/automatic.hpp"
#include "../schedule/name.hpp"
#include "../progress.hpp"
#include "../request.hpp"
#include "execute_mpi.hpp"
#include "mpi.hpp"
#include "operation.hpp"
#include "plan_for.hpp"
#include "progress_engine.hpp"

namespace hpcoll::detail {

/// An op for the collectives that move data without combining it: their plans
/// contain no reduction steps, so it is never called.
struct no_op {
  template <class T>
  constexpr const T& operator()(const T& a, const T&) const noexcept {
    return a;
  }
};

/// Compile-time checks shared by every entry point; the messages start with
/// "hpcoll:" so they are easy to search for in a compiler's output.
template <class S, class Shape, class T, class Op = no_op>
constexpr void static_checks() {
  static_assert(serves<S, Shape>,
                "hpcoll: the schedule does not serve this collective (see the schedule table in README.md)");
  static_assert(transmittable<T>, "hpcoll: the element type must be trivially copyable");
  if constexpr (!std::same_as<Op, no_op>) {
    static_assert(reduction_for<Op, T>, "hpcoll: the op cannot combine two elements of this type");
    static_assert(is_commutative_v<Op> || !requires_commutative<S, Shape>,
                  "hpcoll: the schedule requires a commutative op for this collective; choose an order-preserving "
                  "schedule (linear, binomial, recursive_doubling) for a non-commutative op");
  }
}

/// A contiguous range of elements seen as a span: const for inputs, mutable
/// for outputs.
template <class R>
concept input_range = std::ranges::contiguous_range<R> && std::ranges::sized_range<R>;
template <class R>
concept output_range = input_range<R> && !std::is_const_v<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

template <input_range R>
auto input_span(const R& r) {
  return std::span<const std::ranges::range_value_t<R>>(std::ranges::data(r), std::ranges::size(r));
}
template <output_range R>
auto output_span(R&& r) {
  return std::span<std::ranges::range_value_t<R>>(std::ranges::data(r), std::ranges::size(r));
}

/// Collects the first problem found with a call's arguments.
class argument_check {
public:
  template <class... Parts>
  void require(bool ok, const Parts&... parts) {
    if (ok || !problem_.empty()) return;
    std::ostringstream o;
    (o << ... << parts);
    problem_ = o.str();
  }
  void root(int root, int size) { require(root >= 0 && root < size, "root ", root, " is not a rank of a communicator of size ", size); }
  /// Input and output must not share memory unless the in-place form is used.
  template <class T>
  void disjoint(std::span<const T> input, std::span<const T> output) {
    if (input.empty() || output.empty()) return;
    const auto* a = reinterpret_cast<const char*>(input.data());
    const auto* b = reinterpret_cast<const char*>(output.data());
    const bool apart = std::less_equal<const char*>{}(a + input.size_bytes(), b) ||
                       std::less_equal<const char*>{}(b + output.size_bytes(), a);
    require(apart, "input and output overlap; use the hpcoll::in_place form");
  }
  const std::string& problem() const { return problem_; }

private:
  std::string problem_;
};

/// What every rank of a call must agree on, compared in checked mode.
struct call_signature {
  std::int64_t root = -1;
  std::int64_t count = 0;  ///< per-rank element count that must match everywhere (or -1: not compared)
  std::int64_t in_place = 0;
};

inline std::int64_t fingerprint(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (char ch : text) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  return static_cast<std::int64_t>(h >> 1);
}

/// Checked mode: one MPI_Allreduce of (value, −value) pairs with MPI_MAX gives
/// every field's maximum and minimum; a field whose minimum and maximum differ
/// is a disagreement. The highest rank with a local argument problem is found
/// the same way. Every rank then raises the same kind of error.
inline void agree(const communicator& c, std::string_view collective, const std::string& schedule,
                  const std::string& local_problem, const call_signature& sig, std::int64_t element_size) {
  constexpr int fields = 6;
  const std::int64_t values[fields] = {fingerprint(collective), fingerprint(schedule), sig.root, sig.count,
                                       sig.in_place, element_size};
  const char* names[fields] = {"the collective", "the schedule", "the root", "the element count",
                               "the in-place form", "the element size"};
  std::int64_t mine[2 * fields + 1];
  for (int i = 0; i < fields; ++i) {
    mine[2 * i] = values[i];
    mine[2 * i + 1] = -values[i];
  }
  mine[2 * fields] = local_problem.empty() ? -1 : c.rank();
  std::int64_t all[2 * fields + 1];
  HPCOLL_MPI(MPI_Allreduce, mine, all, 2 * fields + 1, MPI_INT64_T, MPI_MAX, c.native());
  if (!local_problem.empty()) throw error(collective, schedule, local_problem);
  if (all[2 * fields] >= 0)
    throw error(collective, schedule, "rank " + std::to_string(all[2 * fields]) + " was called with invalid arguments");
  for (int i = 0; i < fields; ++i) {
    const std::int64_t hi = all[2 * i], lo = -all[2 * i + 1];
    if (hi == lo) continue;
    std::string what = std::string("ranks disagree on ") + names[i];
    if (i >= 2) what += " (values from " + std::to_string(lo) + " to " + std::to_string(hi) + ")";
    throw error(collective, schedule, what);
  }
}

/// Checked mode, second step: raise on every rank if any rank found a problem.
inline void agree_no_problem(const communicator& c, std::string_view collective, const std::string& schedule,
                             const std::string& local_problem) {
  const std::int64_t mine = local_problem.empty() ? -1 : c.rank();
  std::int64_t worst = -1;
  HPCOLL_MPI(MPI_Allreduce, &mine, &worst, 1, MPI_INT64_T, MPI_MAX, c.native());
  if (!local_problem.empty()) throw error(collective, schedule, local_problem);
  if (worst >= 0) throw error(collective, schedule, "rank " + std::to_string(worst) + " was called with invalid arguments");
}

/// No cross-rank check beyond the call signature.
struct no_count_check {
  std::string operator()() const { return {}; }
};

/// A schedule's name, made once (composites build theirs from their phases).
template <class S>
const std::string& static_schedule_name() {
  static const std::string name = schedule_name<S>();
  return name;
}

/// How an entry point runs the plan it has checked: now, blocking (the
/// collective objects' call operator and the free functions); as a request in
/// flight (start(), the i<collective> functions); or as an inactive persistent
/// request that draws its tag at each start (persistent()).
struct blocking_launch {
  static constexpr bool draws_tag = true;
  static constexpr progress_kind kind = progress_kind::manual;  // needs no thread support beyond MPI's default

  template <class Shape, class MakePlan, class T, class Op>
  void operator()(const communicator& c, const call_info& info, int tag, const Shape& shape, MakePlan make_plan,
                  const T* input, T* output, const Op& op) const {
    try {
      execute_mpi(c.native(), tag, make_plan(shape), input, output, op);
    } catch (const error& e) {
      throw named(e, info.collective, *info.schedule);
    }
    c.dispatch_cache().count(info.collective, info.schedule, info.dispatched);
  }
};

template <progress_policy Progress>
struct nonblocking_launch {
  static constexpr bool draws_tag = true;
  static constexpr progress_kind kind = Progress::kind;

  template <class Shape, class MakePlan, class T, class Op>
  request operator()(const communicator& c, const call_info& info, int tag, const Shape& shape, MakePlan make_plan,
                     const T* input, T* output, const Op& op) const {
    std::unique_ptr<operation> run = make_operation(c, kind, info, shape, make_plan, input, output, op);
    launch(*run, tag);
    run->count_run();
    return request(std::move(run));
  }
};

template <progress_policy Progress>
struct persistent_launch {
  static constexpr bool draws_tag = false;
  static constexpr progress_kind kind = Progress::kind;

  template <class Shape, class MakePlan, class T, class Op>
  persistent_request operator()(const communicator& c, const call_info& info, int, const Shape& shape,
                                MakePlan make_plan, const T* input, T* output, const Op& op) const {
    return persistent_request(make_operation(c, kind, info, shape, make_plan, input, output, op));
  }
};

/// The common tail of every collective entry point. In checked mode the ranks
/// first agree on the call signature (including the schedule the dispatcher
/// chose); then `count_check` (which may talk to the other ranks, now known
/// to agree on root and collective) looks for per-rank count mismatches of
/// the v-collectives. Every problem is raised before any message is sent;
/// then `launch` runs the plan.
template <class S, class Check, class Launch, class Shape, class T, class Op, class CountCheck = no_count_check>
auto run_collective(Launch launch, const communicator& c, const Shape& shape, const argument_check& args,
                    const call_signature& sig, const T* input, T* output, const Op& op, CountCheck count_check = {}) {
  constexpr std::string_view collective = collective_name<Shape>;
  // Drawn before any check can throw, so every rank keeps the same sequence.
  const int tag = Launch::draws_tag ? c.next_tag() : 0;
  constexpr bool dispatched = std::same_as<S, schedule::automatic>;
  std::string problem = args.problem();
  if constexpr (Launch::kind != progress_kind::manual)
    if (problem.empty()) problem = thread_support_problem(Launch::kind);
  const std::string* schedule = &static_schedule_name<S>();
  std::size_t choice = 0;
  if constexpr (dispatched) {
    if (problem.empty()) {
      try {
        choice = dispatch<Shape, Op, T>(c, shape);
        schedule = &schedule::candidate_names<Shape>()[choice];
      } catch (const error& e) {
        if (!Check::enabled()) throw;
        problem = problem_of(e);  // raised on every rank once they have agreed
      }
    }
  }
  if (Check::enabled()) {
    agree(c, collective, *schedule, problem, sig, static_cast<std::int64_t>(sizeof(T)));
    if constexpr (!std::same_as<CountCheck, no_count_check>) agree_no_problem(c, collective, *schedule, count_check());
  } else if (!problem.empty()) {
    throw error(collective, *schedule, problem);
  }
  const auto make_plan = [choice](const Shape& s) {
    if constexpr (dispatched)
      return schedule::automatic::pick(s, choice);
    else
      return plan_for<S>(s);
  };
  return launch(c, call_info{collective, schedule, dispatched}, tag, shape, make_plan, input, output, op);
}

/// The entry points every collective object offers on top of its own
/// `call(launch, c, args...)` overloads (Derived befriends this class):
///   coll(c, args...)                         blocking
///   coll.start([policy,] c, args...)         nonblocking: an hpcoll::request
///   Coll::persistent([policy,] c, args...)   an hpcoll::persistent_request
/// A request outlives the call that makes it, so its buffers must too: a
/// range argument must be an lvalue or a view, never a temporary container.
template <class... Args>
constexpr void check_outlives() {
  static_assert((... && (!std::ranges::range<std::remove_cvref_t<Args>> || std::ranges::borrowed_range<Args>)),
                "hpcoll: a nonblocking or persistent operation keeps using its ranges after the call returns; pass "
                "lvalues or views (std::span), not temporary containers");
}

template <class Derived, progress_policy Progress>
struct collective_interface {
public:
  template <class... Args>
  void operator()(const communicator& c, Args&&... args) const {
    Derived::call(blocking_launch{}, c, std::forward<Args>(args)...);
  }

  template <class... Args>
  request start(const communicator& c, Args&&... args) const {
    return start(Progress{}, c, std::forward<Args>(args)...);
  }
  template <progress_policy P, class... Args>
  request start(P, const communicator& c, Args&&... args) const {
    check_outlives<Args...>();
    return Derived::call(nonblocking_launch<P>{}, c, std::forward<Args>(args)...);
  }

  template <class... Args>
  static persistent_request persistent(const communicator& c, Args&&... args) {
    return persistent(Progress{}, c, std::forward<Args>(args)...);
  }
  template <progress_policy P, class... Args>
  static persistent_request persistent(P, const communicator& c, Args&&... args) {
    check_outlives<Args...>();
    return Derived::call(persistent_launch<P>{}, c, std::forward<Args>(args)...);
  }
};

}  // namespace hpcoll::detail
