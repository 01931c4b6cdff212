// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::ReduceScatterBlock — rank q receives block q of the reduction of all ranks' vectors.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "../entry/collective.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct ReduceScatterBlock : detail::collective_interface<ReduceScatterBlock<Schedule, Check, Progress>, Schedule, Check, Progress> {
  using schedule_type = Schedule;

  /// in: size × out.size() elements; out receives block `rank` of the reduction.
  template <detail::input_range In, detail::output_range Out, class Op>
  static auto prepare(const communicator& c, const In& in, Out&& out, Op op) {
    static_assert(std::same_as<detail::element_t<In>, detail::element_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    call_type<detail::element_t<In>, Op> call;
    fill(call, c, input.data(), output, output.size(), false, op);
    call.args.require(input.size() == output.size() * static_cast<std::size_t>(c.size()), "input has ", input.size(),
                      " elements, it needs ", c.size(), " blocks of ", output.size());
    call.args.disjoint(input, std::span<const detail::element_t<In>>(output));
    return call;
  }

  /// In place: buf holds this rank's size × n elements; block `rank` of the
  /// result is written to its first n elements.
  template <detail::output_range Buf, class Op>
  static auto prepare(const communicator& c, in_place_t, Buf&& buf, Op op) {
    const auto buffer = detail::output_span(buf);
    const auto p = static_cast<std::size_t>(c.size());
    call_type<detail::element_t<Buf>, Op> call;
    call.args.require(buffer.size() % p == 0, "the buffer has ", buffer.size(), " elements, not a multiple of ", p);
    fill(call, c, buffer.data(), buffer, call.args.ok() ? buffer.size() / p : 0, true, op);
    return call;
  }

private:
  template <class T, class Op>
  using call_type = detail::prepared_call<reduce_scatter_block_shape, T, Op>;

  template <class T, class Op>
  static void fill(call_type<T, Op>& call, const communicator& c, const T* input, std::span<T> output,
                   std::size_t count, bool in_place, const Op& op) {
    call.set({c.rank(), c.size(), count, is_commutative_v<Op>, in_place, sizeof(T)}, input, output.data(),
             {-1, static_cast<std::int64_t>(count), in_place});
    call.op = op;
  }
};

/// hpcoll::reduce_scatter_block(c, in, out, op) and reduce_scatter_block(c, in_place, buf, op).
template <class... Args>
void reduce_scatter_block(const communicator& c, Args&&... args) {
  ReduceScatterBlock<>{}(c, std::forward<Args>(args)...);
}

/// hpcoll::ireduce_scatter_block([policy,] c, ...): the nonblocking form, same arguments; returns
/// an hpcoll::request. The policy is progress::manual unless given as a
/// template argument (ireduce_scatter_block<progress::thread>(c, ...)) or first argument.
template <progress_policy P = progress::manual, class... Args>
request ireduce_scatter_block(const communicator& c, Args&&... args) {
  return ReduceScatterBlock<schedule::automatic, check::from_env, P>{}.start(c, std::forward<Args>(args)...);
}
template <progress_policy P, class... Args>
request ireduce_scatter_block(P, const communicator& c, Args&&... args) {
  return ireduce_scatter_block<P>(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
