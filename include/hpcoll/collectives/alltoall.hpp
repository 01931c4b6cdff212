// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::Alltoall — block j of every rank's buffer goes to rank j.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "../entry/collective.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Alltoall : detail::collective_interface<Alltoall<Schedule, Check, Progress>, Schedule, Check, Progress> {
  using schedule_type = Schedule;

  /// in, out: size blocks of the same length.
  template <detail::input_range In, detail::output_range Out>
  static auto prepare(const communicator& c, const In& in, Out&& out) {
    static_assert(std::same_as<detail::element_t<In>, detail::element_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    const auto p = static_cast<std::size_t>(c.size());
    call_type<detail::element_t<In>> call;
    call.args.require(input.size() == output.size(), "output has ", output.size(), " elements, input has ",
                      input.size());
    call.args.require(input.size() % p == 0, "input has ", input.size(), " elements, not a multiple of ", p);
    call.args.disjoint(input, std::span<const detail::element_t<In>>(output));
    fill(call, c, input.data(), output, false);
    return call;
  }

  /// In place: buf's blocks are sent and replaced by the received ones.
  template <detail::output_range Buf>
  static auto prepare(const communicator& c, in_place_t, Buf&& buf) {
    const auto buffer = detail::output_span(buf);
    const auto p = static_cast<std::size_t>(c.size());
    call_type<detail::element_t<Buf>> call;
    call.args.require(buffer.size() % p == 0, "the buffer has ", buffer.size(), " elements, not a multiple of ", p);
    fill(call, c, buffer.data(), buffer, true);
    return call;
  }

private:
  template <class T>
  using call_type = detail::prepared_call<alltoall_shape, T>;

  /// The shape of the call, after its argument checks (a malformed call has blocks of 0).
  template <class T>
  static void fill(call_type<T>& call, const communicator& c, const T* input, std::span<T> output, bool in_place) {
    const std::size_t block = call.args.ok() ? output.size() / static_cast<std::size_t>(c.size()) : 0;
    call.set({c.rank(), c.size(), block, in_place, sizeof(T)}, input, output.data(),
             {-1, static_cast<std::int64_t>(block), in_place});
  }
};

/// hpcoll::alltoall(c, in, out) and alltoall(c, in_place, buf).
template <class... Args>
void alltoall(const communicator& c, Args&&... args) {
  Alltoall<>{}(c, std::forward<Args>(args)...);
}

/// hpcoll::ialltoall([policy,] c, ...): the nonblocking form, same arguments; returns
/// an hpcoll::request. The policy is progress::manual unless given as a
/// template argument (ialltoall<progress::thread>(c, ...)) or first argument.
template <progress_policy P = progress::manual, class... Args>
request ialltoall(const communicator& c, Args&&... args) {
  return Alltoall<schedule::automatic, check::from_env, P>{}.start(c, std::forward<Args>(args)...);
}
template <progress_policy P, class... Args>
request ialltoall(P, const communicator& c, Args&&... args) {
  return ialltoall<P>(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
