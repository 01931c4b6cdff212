// hpcoll::Scatter — block q of the root's buffer goes to rank q.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "detail/collective.hpp"
#include "schedule/automatic.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Scatter : detail::collective_interface<Scatter<Schedule, Check, Progress>, Progress> {
  using schedule_type = Schedule;

  // The forms below are reached as coll(c, ...) (blocking), coll.start([policy,]
  // c, ...) (an hpcoll::request) and Coll::persistent([policy,] c, ...).
private:
  friend detail::collective_interface<Scatter, Progress>;

  /// in (root only: size × out.size() elements); every rank's out receives its block.
  template <class Launch, detail::input_range In, detail::output_range Out>
  static auto call(Launch launch, const communicator& c, const In& in, Out&& out, int root) {
    static_assert(std::same_as<std::ranges::range_value_t<In>, std::ranges::range_value_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    detail::argument_check args;
    args.root(root, c.size());
    if (c.rank() == root) {
      args.require(input.size() == output.size() * static_cast<std::size_t>(c.size()), "the root's input has ",
                   input.size(), " elements, it needs ", c.size(), " blocks of ", output.size());
      args.disjoint(input, std::span<const std::ranges::range_value_t<In>>(output));
    }
    return run(launch, c, input.data(), output, false, root, args);
  }

  /// In place, at the root only (MPI_IN_PLACE as the receive buffer): the
  /// root keeps its block where it is in `in`.
  template <class Launch, detail::output_range In>
  static auto call(Launch launch, const communicator& c, In&& in, in_place_t, int root) {
    const auto input = detail::output_span(in);
    const auto p = static_cast<std::size_t>(c.size());
    detail::argument_check args;
    args.root(root, c.size());
    args.require(c.rank() == root, "only the root may use the in-place form");
    args.require(input.size() % p == 0, "the root's input has ", input.size(), " elements, not a multiple of ", p);
    const std::size_t n = input.size() / p;
    const std::size_t own = args.problem().empty() ? static_cast<std::size_t>(root) * n : 0;
    return run(launch, c, input.data(), input.subspan(own, args.problem().empty() ? n : 0), true, root, args);
  }

  template <class Launch, class T>
  static auto run(Launch launch, const communicator& c, const T* input, std::span<T> output, bool in_place, int root,
                  const detail::argument_check& args) {
    detail::static_checks<Schedule, scatter_shape, T>();
    const scatter_shape shape{c.rank(), c.size(), root, output.size(), in_place, sizeof(T)};
    const detail::call_signature sig{root, static_cast<std::int64_t>(output.size()), 0};
    return detail::run_collective<Schedule, Check>(launch, c, shape, args, sig, input, output.data(), detail::no_op{});
  }
};

/// hpcoll::scatter(c, in, out, root) and scatter(c, in, in_place, root).
template <class... Args>
void scatter(const communicator& c, Args&&... args) {
  Scatter<>{}(c, std::forward<Args>(args)...);
}

/// hpcoll::iscatter([policy,] c, ...): the nonblocking form, same arguments; returns
/// an hpcoll::request. The policy is progress::manual unless given as a
/// template argument (iscatter<progress::thread>(c, ...)) or first argument.
template <progress_policy P = progress::manual, class... Args>
request iscatter(const communicator& c, Args&&... args) {
  return Scatter<schedule::automatic, check::from_env, P>{}.start(c, std::forward<Args>(args)...);
}
template <progress_policy P, class... Args>
request iscatter(P, const communicator& c, Args&&... args) {
  return iscatter<P>(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
