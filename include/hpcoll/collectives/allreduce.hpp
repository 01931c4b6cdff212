// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::Allreduce — every rank receives the reduction of all ranks' vectors.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "../entry/collective.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Allreduce : detail::collective_interface<Allreduce<Schedule, Check, Progress>, Schedule, Check, Progress> {
  using schedule_type = Schedule;

  /// out[i] = in_0[i] ⊕ in_1[i] ⊕ … ⊕ in_{p−1}[i] on every rank.
  template <detail::input_range In, detail::output_range Out, class Op>
  static auto prepare(const communicator& c, const In& in, Out&& out, Op op) {
    static_assert(std::same_as<detail::element_t<In>, detail::element_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    call_type<detail::element_t<In>, Op> call;
    fill(call, c, input.data(), output, false, op);
    call.args.require(output.size() == input.size(), "output has ", output.size(), " elements, input has ", input.size());
    call.args.disjoint(input, std::span<const detail::element_t<In>>(output));
    return call;
  }

  /// In place (MPI_IN_PLACE): buf holds this rank's vector and receives the result.
  template <detail::output_range Buf, class Op>
  static auto prepare(const communicator& c, in_place_t, Buf&& buf, Op op) {
    const auto buffer = detail::output_span(buf);
    call_type<detail::element_t<Buf>, Op> call;
    fill(call, c, buffer.data(), buffer, true, op);
    return call;
  }

private:
  template <class T, class Op>
  using call_type = detail::prepared_call<allreduce_shape, T, Op>;

  template <class T, class Op>
  static void fill(call_type<T, Op>& call, const communicator& c, const T* input, std::span<T> output, bool in_place,
                   const Op& op) {
    call.set({c.rank(), c.size(), output.size(), is_commutative_v<Op>, in_place, sizeof(T)}, input, output.data(),
             {-1, static_cast<std::int64_t>(output.size()), in_place});
    call.op = op;
  }
};

/// hpcoll::allreduce(c, in, out, op) and allreduce(c, in_place, buf, op).
template <class... Args>
void allreduce(const communicator& c, Args&&... args) {
  Allreduce<>{}(c, std::forward<Args>(args)...);
}

/// hpcoll::iallreduce([policy,] c, ...): the nonblocking form, same arguments; returns
/// an hpcoll::request. The policy is progress::manual unless given as a
/// template argument (iallreduce<progress::thread>(c, ...)) or first argument.
template <progress_policy P = progress::manual, class... Args>
request iallreduce(const communicator& c, Args&&... args) {
  return Allreduce<schedule::automatic, check::from_env, P>{}.start(c, std::forward<Args>(args)...);
}
template <progress_policy P, class... Args>
request iallreduce(P, const communicator& c, Args&&... args) {
  return iallreduce<P>(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
