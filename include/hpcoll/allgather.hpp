// hpcoll::Allgather — every rank receives every rank's block, in rank order.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "detail/collective.hpp"
#include "schedule/automatic.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env>
struct Allgather {
  using schedule_type = Schedule;

  /// out (size × in.size() elements) receives rank q's `in` as block q.
  template <detail::input_range In, detail::output_range Out>
  void operator()(const communicator& c, const In& in, Out&& out) const {
    static_assert(std::same_as<std::ranges::range_value_t<In>, std::ranges::range_value_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    detail::argument_check args;
    args.require(output.size() == input.size() * static_cast<std::size_t>(c.size()), "output has ", output.size(),
                 " elements, it needs ", c.size(), " blocks of ", input.size());
    args.disjoint(input, std::span<const std::ranges::range_value_t<In>>(output));
    run(c, input.data(), input.size(), output, false, args);
  }

  /// In place: this rank's block is already at block `rank` of buf.
  template <detail::output_range Buf>
  void operator()(const communicator& c, in_place_t, Buf&& buf) const {
    const auto buffer = detail::output_span(buf);
    const auto p = static_cast<std::size_t>(c.size());
    detail::argument_check args;
    args.require(buffer.size() % p == 0, "the buffer has ", buffer.size(), " elements, not a multiple of ", p);
    const std::size_t n = args.problem().empty() ? buffer.size() / p : 0;
    run(c, buffer.data() + static_cast<std::size_t>(c.rank()) * n, n, buffer, true, args);
  }

private:
  template <class T>
  static void run(const communicator& c, const T* input, std::size_t count, std::span<T> output, bool in_place,
                  const detail::argument_check& args) {
    detail::static_checks<Schedule, allgather_shape, T>();
    const allgather_shape shape{c.rank(), c.size(), count, in_place, sizeof(T)};
    const detail::call_signature sig{-1, static_cast<std::int64_t>(count), in_place};
    detail::run_collective<Schedule, Check>(c, shape, args, sig, input, output.data(), detail::no_op{});
  }
};

/// hpcoll::allgather(c, in, out) and allgather(c, in_place, buf).
template <class... Args>
void allgather(const communicator& c, Args&&... args) {
  Allgather<>{}(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
