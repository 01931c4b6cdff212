// hpcoll::Allgather — every rank receives every rank's block, in rank order.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "detail/collective.hpp"
#include "schedule/automatic.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Allgather : detail::collective_interface<Allgather<Schedule, Check, Progress>, Progress> {
  using schedule_type = Schedule;

  // The forms below are reached as coll(c, ...) (blocking), coll.start([policy,]
  // c, ...) (an hpcoll::request) and Coll::persistent([policy,] c, ...).
private:
  friend detail::collective_interface<Allgather, Progress>;

  /// out (size × in.size() elements) receives rank q's `in` as block q.
  template <class Launch, detail::input_range In, detail::output_range Out>
  static auto call(Launch launch, const communicator& c, const In& in, Out&& out) {
    static_assert(std::same_as<std::ranges::range_value_t<In>, std::ranges::range_value_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    detail::argument_check args;
    args.require(output.size() == input.size() * static_cast<std::size_t>(c.size()), "output has ", output.size(),
                 " elements, it needs ", c.size(), " blocks of ", input.size());
    args.disjoint(input, std::span<const std::ranges::range_value_t<In>>(output));
    return run(launch, c, input.data(), input.size(), output, false, args);
  }

  /// In place: this rank's block is already at block `rank` of buf.
  template <class Launch, detail::output_range Buf>
  static auto call(Launch launch, const communicator& c, in_place_t, Buf&& buf) {
    const auto buffer = detail::output_span(buf);
    const auto p = static_cast<std::size_t>(c.size());
    detail::argument_check args;
    args.require(buffer.size() % p == 0, "the buffer has ", buffer.size(), " elements, not a multiple of ", p);
    const std::size_t n = args.problem().empty() ? buffer.size() / p : 0;
    return run(launch, c, buffer.data() + static_cast<std::size_t>(c.rank()) * n, n, buffer, true, args);
  }

  template <class Launch, class T>
  static auto run(Launch launch, const communicator& c, const T* input, std::size_t count, std::span<T> output,
                  bool in_place, const detail::argument_check& args) {
    detail::static_checks<Schedule, allgather_shape, T>();
    const allgather_shape shape{c.rank(), c.size(), count, in_place, sizeof(T)};
    const detail::call_signature sig{-1, static_cast<std::int64_t>(count), in_place};
    return detail::run_collective<Schedule, Check>(launch, c, shape, args, sig, input, output.data(), detail::no_op{});
  }
};

/// hpcoll::allgather(c, in, out) and allgather(c, in_place, buf).
template <class... Args>
void allgather(const communicator& c, Args&&... args) {
  Allgather<>{}(c, std::forward<Args>(args)...);
}

/// hpcoll::iallgather([policy,] c, ...): the nonblocking form, same arguments; returns
/// an hpcoll::request. The policy is progress::manual unless given as a
/// template argument (iallgather<progress::thread>(c, ...)) or first argument.
template <progress_policy P = progress::manual, class... Args>
request iallgather(const communicator& c, Args&&... args) {
  return Allgather<schedule::automatic, check::from_env, P>{}.start(c, std::forward<Args>(args)...);
}
template <progress_policy P, class... Args>
request iallgather(P, const communicator& c, Args&&... args) {
  return iallgather<P>(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
