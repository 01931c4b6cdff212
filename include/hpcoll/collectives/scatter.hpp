// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::Scatter — block q of the root's buffer goes to rank q.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "../entry/collective.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Scatter : detail::collective_interface<Scatter<Schedule, Check, Progress>, Schedule, Check, Progress> {
  using schedule_type = Schedule;

  /// in (root only: size × out.size() elements); every rank's out receives its block.
  template <detail::input_range In, detail::output_range Out>
  static auto prepare(const communicator& c, const In& in, Out&& out, int root) {
    static_assert(std::same_as<detail::element_t<In>, detail::element_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    call_type<detail::element_t<In>> call;
    fill(call, c, input.data(), output, false, root);
    call.args.root(root, c.size());
    if (c.rank() == root) {
      call.args.require(input.size() == output.size() * static_cast<std::size_t>(c.size()), "the root's input has ",
                        input.size(), " elements, it needs ", c.size(), " blocks of ", output.size());
      call.args.disjoint(input, std::span<const detail::element_t<In>>(output));
    }
    return call;
  }

  /// In place, at the root only (MPI_IN_PLACE as the receive buffer): the
  /// root keeps its block where it is in `in`.
  template <detail::output_range In>
  static auto prepare(const communicator& c, In&& in, in_place_t, int root) {
    const auto input = detail::output_span(in);
    const auto p = static_cast<std::size_t>(c.size());
    call_type<detail::element_t<In>> call;
    call.args.root(root, c.size());
    call.args.require(c.rank() == root, "only the root may use the in-place form");
    call.args.require(input.size() % p == 0, "the root's input has ", input.size(), " elements, not a multiple of ", p);
    const std::size_t n = input.size() / p;
    const bool ok = call.args.ok();
    fill(call, c, input.data(), input.subspan(ok ? static_cast<std::size_t>(root) * n : 0, ok ? n : 0), true, root);
    return call;
  }

private:
  template <class T>
  using call_type = detail::prepared_call<scatter_shape, T>;

  template <class T>
  static void fill(call_type<T>& call, const communicator& c, const T* input, std::span<T> output, bool in_place,
                   int root) {
    call.set({c.rank(), c.size(), root, output.size(), in_place, sizeof(T)}, input, output.data(),
             {root, static_cast<std::int64_t>(output.size()), 0});
  }
};

/// hpcoll::scatter(c, in, out, root) and scatter(c, in, in_place, root).
template <class... Args>
void scatter(const communicator& c, Args&&... args) {
  Scatter<>{}(c, std::forward<Args>(args)...);
}

/// hpcoll::iscatter([policy,] c, ...): the nonblocking form, same arguments; returns
/// an hpcoll::request. The policy is progress::manual unless given as a
/// template argument (iscatter<progress::thread>(c, ...)) or first argument.
template <progress_policy P = progress::manual, class... Args>
request iscatter(const communicator& c, Args&&... args) {
  return Scatter<schedule::automatic, check::from_env, P>{}.start(c, std::forward<Args>(args)...);
}
template <progress_policy P, class... Args>
request iscatter(P, const communicator& c, Args&&... args) {
  return iscatter<P>(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
