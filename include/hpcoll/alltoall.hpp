// hpcoll::Alltoall — block j of rank i's input becomes block i of rank j's output.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "detail/collective.hpp"
#include "schedule/automatic.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env>
struct Alltoall {
  using schedule_type = Schedule;

  /// in, out: size blocks of the same length.
  template <detail::input_range In, detail::output_range Out>
  void operator()(const communicator& c, const In& in, Out&& out) const {
    static_assert(std::same_as<std::ranges::range_value_t<In>, std::ranges::range_value_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    const auto p = static_cast<std::size_t>(c.size());
    detail::argument_check args;
    args.require(input.size() == output.size(), "output has ", output.size(), " elements, input has ", input.size());
    args.require(input.size() % p == 0, "input has ", input.size(), " elements, not a multiple of ", p);
    args.disjoint(input, std::span<const std::ranges::range_value_t<In>>(output));
    run(c, input.data(), output, false, args);
  }

  /// In place: buf's blocks are sent and replaced by the received ones.
  template <detail::output_range Buf>
  void operator()(const communicator& c, in_place_t, Buf&& buf) const {
    const auto buffer = detail::output_span(buf);
    const auto p = static_cast<std::size_t>(c.size());
    detail::argument_check args;
    args.require(buffer.size() % p == 0, "the buffer has ", buffer.size(), " elements, not a multiple of ", p);
    run(c, buffer.data(), buffer, true, args);
  }

private:
  template <class T>
  static void run(const communicator& c, const T* input, std::span<T> output, bool in_place,
                  const detail::argument_check& args) {
    detail::static_checks<Schedule, alltoall_shape, T>();
    const std::size_t block = args.problem().empty() ? output.size() / static_cast<std::size_t>(c.size()) : 0;
    const alltoall_shape shape{c.rank(), c.size(), block, in_place, sizeof(T)};
    const detail::call_signature sig{-1, static_cast<std::int64_t>(block), in_place};
    detail::run_collective<Schedule, Check>(c, shape, args, sig, input, output.data(), detail::no_op{});
  }
};

/// hpcoll::alltoall(c, in, out) and alltoall(c, in_place, buf).
template <class... Args>
void alltoall(const communicator& c, Args&&... args) {
  Alltoall<>{}(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
