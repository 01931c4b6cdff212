// hpcoll::Gather — the root receives every rank's block, in rank order.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "detail/collective.hpp"
#include "schedule/automatic.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Gather : detail::collective_interface<Gather<Schedule, Check, Progress>, Progress> {
  using schedule_type = Schedule;

  // The forms below are reached as coll(c, ...) (blocking), coll.start([policy,]
  // c, ...) (an hpcoll::request) and Coll::persistent([policy,] c, ...).
private:
  friend detail::collective_interface<Gather, Progress>;

  /// out (root only: size × in.size() elements) receives rank q's `in` as block q.
  template <class Launch, detail::input_range In, detail::output_range Out>
  static auto call(Launch launch, const communicator& c, const In& in, Out&& out, int root) {
    static_assert(std::same_as<std::ranges::range_value_t<In>, std::ranges::range_value_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    detail::argument_check args;
    args.root(root, c.size());
    if (c.rank() == root) {
      args.require(output.size() == input.size() * static_cast<std::size_t>(c.size()), "the root's output has ",
                   output.size(), " elements, it needs ", c.size(), " blocks of ", input.size());
      args.disjoint(input, std::span<const std::ranges::range_value_t<In>>(output));
    }
    return run(launch, c, input.data(), input.size(), c.rank() == root ? output : output.first(0), false, root, args);
  }

  /// In place, at the root only: its own block is already at block `root` of buf.
  template <class Launch, detail::output_range Buf>
  static auto call(Launch launch, const communicator& c, in_place_t, Buf&& buf, int root) {
    const auto buffer = detail::output_span(buf);
    const auto p = static_cast<std::size_t>(c.size());
    detail::argument_check args;
    args.root(root, c.size());
    args.require(c.rank() == root, "only the root may use the in-place form");
    args.require(buffer.size() % p == 0, "the root's buffer has ", buffer.size(), " elements, not a multiple of ", p);
    const std::size_t n = buffer.size() / p;
    const auto* own = buffer.data() + (args.problem().empty() ? static_cast<std::size_t>(root) * n : 0);
    return run(launch, c, own, n, buffer, true, root, args);
  }

  template <class Launch, class T>
  static auto run(Launch launch, const communicator& c, const T* input, std::size_t count, std::span<T> output,
                  bool in_place, int root, const detail::argument_check& args) {
    detail::static_checks<Schedule, gather_shape, T>();
    const gather_shape shape{c.rank(), c.size(), root, count, in_place, sizeof(T)};
    const detail::call_signature sig{root, static_cast<std::int64_t>(count), 0};
    return detail::run_collective<Schedule, Check>(launch, c, shape, args, sig, input, output.data(), detail::no_op{});
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
