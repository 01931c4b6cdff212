// hpcoll::Reduce — the root receives the reduction of all ranks' vectors.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "detail/collective.hpp"
#include "schedule/automatic.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Reduce : detail::collective_interface<Reduce<Schedule, Check, Progress>, Progress> {
  using schedule_type = Schedule;

  // The forms below are reached as coll(c, ...) (blocking), coll.start([policy,]
  // c, ...) (an hpcoll::request) and Coll::persistent([policy,] c, ...).
private:
  friend detail::collective_interface<Reduce, Progress>;

  /// out (significant at the root only, may be empty elsewhere) =
  /// in_0 ⊕ in_1 ⊕ … ⊕ in_{p−1}, element-wise.
  template <class Launch, detail::input_range In, detail::output_range Out, class Op>
  static auto call(Launch launch, const communicator& c, const In& in, Out&& out, Op op, int root) {
    static_assert(std::same_as<std::ranges::range_value_t<In>, std::ranges::range_value_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    detail::argument_check args;
    args.root(root, c.size());
    if (c.rank() == root) {
      args.require(output.size() == input.size(), "the root's output has ", output.size(), " elements, input has ",
                   input.size());
      args.disjoint(input, std::span<const std::ranges::range_value_t<In>>(output));
    }
    const auto at_root = c.rank() == root ? output : output.first(0);
    return run(launch, c, input.data(), input.size(), at_root, false, root, args, op);
  }

  /// In place, at the root only (MPI_IN_PLACE): buf holds the root's vector
  /// and receives the result. The other ranks call the form above.
  template <class Launch, detail::output_range Buf, class Op>
  static auto call(Launch launch, const communicator& c, in_place_t, Buf&& buf, Op op, int root) {
    const auto buffer = detail::output_span(buf);
    detail::argument_check args;
    args.root(root, c.size());
    args.require(c.rank() == root, "only the root may use the in-place form");
    return run(launch, c, buffer.data(), buffer.size(), buffer, true, root, args, op);
  }

  template <class Launch, class T, class Op>
  static auto run(Launch launch, const communicator& c, const T* input, std::size_t count, std::span<T> output,
                  bool in_place, int root, const detail::argument_check& args, const Op& op) {
    detail::static_checks<Schedule, reduce_shape, T, Op>();
    const reduce_shape shape{c.rank(), c.size(), root, count, is_commutative_v<Op>, in_place, sizeof(T)};
    const detail::call_signature sig{root, static_cast<std::int64_t>(count), 0};
    return detail::run_collective<Schedule, Check>(launch, c, shape, args, sig, input, output.data(), op);
  }
};

/// hpcoll::reduce(c, in, out, op, root) and reduce(c, in_place, buf, op, root).
template <class... Args>
void reduce(const communicator& c, Args&&... args) {
  Reduce<>{}(c, std::forward<Args>(args)...);
}

/// hpcoll::ireduce([policy,] c, ...): the nonblocking form, same arguments; returns
/// an hpcoll::request. The policy is progress::manual unless given as a
/// template argument (ireduce<progress::thread>(c, ...)) or first argument.
template <progress_policy P = progress::manual, class... Args>
request ireduce(const communicator& c, Args&&... args) {
  return Reduce<schedule::automatic, check::from_env, P>{}.start(c, std::forward<Args>(args)...);
}
template <progress_policy P, class... Args>
request ireduce(P, const communicator& c, Args&&... args) {
  return ireduce<P>(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
