// hpcoll::Allreduce — every rank receives the reduction of all ranks' vectors.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "detail/collective.hpp"
#include "schedule/automatic.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env>
struct Allreduce {
  using schedule_type = Schedule;

  /// out[i] = in_0[i] ⊕ in_1[i] ⊕ … ⊕ in_{p−1}[i] on every rank.
  template <detail::input_range In, detail::output_range Out, class Op>
  void operator()(const communicator& c, const In& in, Out&& out, Op op) const {
    static_assert(std::same_as<std::ranges::range_value_t<In>, std::ranges::range_value_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    detail::argument_check args;
    args.require(output.size() == input.size(), "output has ", output.size(), " elements, input has ", input.size());
    args.disjoint(input, std::span<const std::ranges::range_value_t<In>>(output));
    run(c, input.data(), output, false, args, op);
  }

  /// In place (MPI_IN_PLACE): buf holds this rank's vector and receives the result.
  template <detail::output_range Buf, class Op>
  void operator()(const communicator& c, in_place_t, Buf&& buf, Op op) const {
    const auto buffer = detail::output_span(buf);
    run(c, buffer.data(), buffer, true, detail::argument_check{}, op);
  }

private:
  template <class T, class Op>
  static void run(const communicator& c, const T* input, std::span<T> output, bool in_place,
                  const detail::argument_check& args, const Op& op) {
    detail::static_checks<Schedule, allreduce_shape, T, Op>();
    const allreduce_shape shape{c.rank(), c.size(), output.size(), is_commutative_v<Op>, in_place, sizeof(T)};
    const detail::call_signature sig{-1, static_cast<std::int64_t>(output.size()), in_place};
    detail::run_collective<Schedule, Check>(c, shape, args, sig, input, output.data(), op);
  }
};

/// hpcoll::allreduce(c, in, out, op) and allreduce(c, in_place, buf, op).
template <class... Args>
void allreduce(const communicator& c, Args&&... args) {
  Allreduce<>{}(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
