// hpcoll::ReduceScatterBlock — the element-wise reduction of all ranks'
// vectors, cut into equal blocks, block q to rank q.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "detail/collective.hpp"
#include "schedule/automatic.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env>
struct ReduceScatterBlock {
  using schedule_type = Schedule;

  /// in: size × out.size() elements; out receives block `rank` of the reduction.
  template <detail::input_range In, detail::output_range Out, class Op>
  void operator()(const communicator& c, const In& in, Out&& out, Op op) const {
    static_assert(std::same_as<std::ranges::range_value_t<In>, std::ranges::range_value_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    detail::argument_check args;
    args.require(input.size() == output.size() * static_cast<std::size_t>(c.size()), "input has ", input.size(),
                 " elements, it needs ", c.size(), " blocks of ", output.size());
    args.disjoint(input, std::span<const std::ranges::range_value_t<In>>(output));
    run(c, input.data(), output, output.size(), false, args, op);
  }

  /// In place: buf holds this rank's size × n elements; block `rank` of the
  /// result is written to its first n elements.
  template <detail::output_range Buf, class Op>
  void operator()(const communicator& c, in_place_t, Buf&& buf, Op op) const {
    const auto buffer = detail::output_span(buf);
    const auto p = static_cast<std::size_t>(c.size());
    detail::argument_check args;
    args.require(buffer.size() % p == 0, "the buffer has ", buffer.size(), " elements, not a multiple of ", p);
    run(c, buffer.data(), buffer, args.problem().empty() ? buffer.size() / p : 0, true, args, op);
  }

private:
  template <class T, class Op>
  static void run(const communicator& c, const T* input, std::span<T> output, std::size_t count, bool in_place,
                  const detail::argument_check& args, const Op& op) {
    detail::static_checks<Schedule, reduce_scatter_block_shape, T, Op>();
    const reduce_scatter_block_shape shape{c.rank(), c.size(), count, is_commutative_v<Op>, in_place, sizeof(T)};
    const detail::call_signature sig{-1, static_cast<std::int64_t>(count), in_place};
    detail::run_collective<Schedule, Check>(c, shape, args, sig, input, output.data(), op);
  }
};

/// hpcoll::reduce_scatter_block(c, in, out, op) and (c, in_place, buf, op).
template <class... Args>
void reduce_scatter_block(const communicator& c, Args&&... args) {
  ReduceScatterBlock<>{}(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
