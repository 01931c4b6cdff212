// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::Reduce — the root receives the reduction of all ranks' vectors.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "../entry/collective.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Reduce : detail::collective_interface<Reduce<Schedule, Check, Progress>, Schedule, Check, Progress> {
  using schedule_type = Schedule;

  /// out (significant at the root only, may be empty elsewhere) =
  /// in_0 ⊕ in_1 ⊕ … ⊕ in_{p−1}, element-wise.
  template <detail::input_range In, detail::output_range Out, class Op>
  static auto prepare(const communicator& c, const In& in, Out&& out, Op op, int root) {
    static_assert(std::same_as<detail::element_t<In>, detail::element_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    call_type<detail::element_t<In>, Op> call;
    fill(call, c, input.data(), input.size(), c.rank() == root ? output : output.first(0), false, root, op);
    call.args.root(root, c.size());
    if (c.rank() == root) {
      call.args.require(output.size() == input.size(), "the root's output has ", output.size(), " elements, input has ",
                        input.size());
      call.args.disjoint(input, std::span<const detail::element_t<In>>(output));
    }
    return call;
  }

  /// In place, at the root only (MPI_IN_PLACE): buf holds the root's vector
  /// and receives the result. The other ranks call the form above.
  template <detail::output_range Buf, class Op>
  static auto prepare(const communicator& c, in_place_t, Buf&& buf, Op op, int root) {
    const auto buffer = detail::output_span(buf);
    call_type<detail::element_t<Buf>, Op> call;
    fill(call, c, buffer.data(), buffer.size(), buffer, true, root, op);
    call.args.root(root, c.size());
    call.args.require(c.rank() == root, "only the root may use the in-place form");
    return call;
  }

private:
  template <class T, class Op>
  using call_type = detail::prepared_call<reduce_shape, T, Op>;

  template <class T, class Op>
  static void fill(call_type<T, Op>& call, const communicator& c, const T* input, std::size_t count,
                   std::span<T> output, bool in_place, int root, const Op& op) {
    call.set({c.rank(), c.size(), root, count, is_commutative_v<Op>, in_place, sizeof(T)}, input, output.data(),
             {root, static_cast<std::int64_t>(count), 0});
    call.op = op;
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
