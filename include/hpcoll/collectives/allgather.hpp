// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::Allgather — every rank receives every rank's block.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "../entry/collective.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Allgather : detail::collective_interface<Allgather<Schedule, Check, Progress>, Schedule, Check, Progress> {
  using schedule_type = Schedule;

  /// out (size × in.size() elements) receives rank q's `in` as block q.
  template <detail::input_range In, detail::output_range Out>
  static auto prepare(const communicator& c, const In& in, Out&& out) {
    static_assert(std::same_as<detail::element_t<In>, detail::element_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    call_type<detail::element_t<In>> call;
    fill(call, c, input.data(), input.size(), output, false);
    call.args.require(output.size() == input.size() * static_cast<std::size_t>(c.size()), "output has ", output.size(),
                      " elements, it needs ", c.size(), " blocks of ", input.size());
    call.args.disjoint(input, std::span<const detail::element_t<In>>(output));
    return call;
  }

  /// In place: this rank's block is already at block `rank` of buf.
  template <detail::output_range Buf>
  static auto prepare(const communicator& c, in_place_t, Buf&& buf) {
    const auto buffer = detail::output_span(buf);
    const auto p = static_cast<std::size_t>(c.size());
    call_type<detail::element_t<Buf>> call;
    call.args.require(buffer.size() % p == 0, "the buffer has ", buffer.size(), " elements, not a multiple of ", p);
    const std::size_t n = call.args.ok() ? buffer.size() / p : 0;
    fill(call, c, buffer.data() + static_cast<std::size_t>(c.rank()) * n, n, buffer, true);
    return call;
  }

private:
  template <class T>
  using call_type = detail::prepared_call<allgather_shape, T>;

  template <class T>
  static void fill(call_type<T>& call, const communicator& c, const T* input, std::size_t count, std::span<T> output,
                   bool in_place) {
    call.set({c.rank(), c.size(), count, in_place, sizeof(T)}, input, output.data(),
             {-1, static_cast<std::int64_t>(count), in_place});
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
