// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::Gather — the root receives every rank's block.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "../entry/collective.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Gather : detail::collective_interface<Gather<Schedule, Check, Progress>, Schedule, Check, Progress> {
  using schedule_type = Schedule;

  /// out (root only: size × in.size() elements) receives rank q's `in` as block q.
  template <detail::input_range In, detail::output_range Out>
  static auto prepare(const communicator& c, const In& in, Out&& out, int root) {
    static_assert(std::same_as<detail::element_t<In>, detail::element_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    call_type<detail::element_t<In>> call;
    fill(call, c, input.data(), input.size(), c.rank() == root ? output : output.first(0), false, root);
    call.args.root(root, c.size());
    if (c.rank() == root) {
      call.args.require(output.size() == input.size() * static_cast<std::size_t>(c.size()), "the root's output has ",
                        output.size(), " elements, it needs ", c.size(), " blocks of ", input.size());
      call.args.disjoint(input, std::span<const detail::element_t<In>>(output));
    }
    return call;
  }

  /// In place, at the root only: its own block is already at block `root` of buf.
  template <detail::output_range Buf>
  static auto prepare(const communicator& c, in_place_t, Buf&& buf, int root) {
    const auto buffer = detail::output_span(buf);
    const auto p = static_cast<std::size_t>(c.size());
    call_type<detail::element_t<Buf>> call;
    call.args.root(root, c.size());
    call.args.require(c.rank() == root, "only the root may use the in-place form");
    call.args.require(buffer.size() % p == 0, "the root's buffer has ", buffer.size(), " elements, not a multiple of ",
                      p);
    const std::size_t n = buffer.size() / p;
    const auto* own = buffer.data() + (call.args.ok() ? static_cast<std::size_t>(root) * n : 0);
    fill(call, c, own, n, buffer, true, root);
    return call;
  }

private:
  template <class T>
  using call_type = detail::prepared_call<gather_shape, T>;

  template <class T>
  static void fill(call_type<T>& call, const communicator& c, const T* input, std::size_t count, std::span<T> output,
                   bool in_place, int root) {
    call.set({c.rank(), c.size(), root, count, in_place, sizeof(T)}, input, output.data(),
             {root, static_cast<std::int64_t>(count), 0});
  }
};

/// hpcoll::gather(c, in, out, root) and gather(c, in_place, buf, root).
template <class... Args>
void gather(const communicator& c, Args&&... args) {
  Gather<>{}(c, std::forward<Args>(args)...);
}

/// hpcoll::igather([policy,] c, ...): the nonblocking form, same arguments; returns
/// an hpcoll::request. The policy is progress::manual unless given as a
/// template argument (igather<progress::thread>(c, ...)) or first argument.
template <progress_policy P = progress::manual, class... Args>
request igather(const communicator& c, Args&&... args) {
  return Gather<schedule::automatic, check::from_env, P>{}.start(c, std::forward<Args>(args)...);
}
template <progress_policy P, class... Args>
request igather(P, const communicator& c, Args&&... args) {
  return igather<P>(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
