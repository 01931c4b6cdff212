// hpcoll::Gatherv — the root receives every rank's block, each of its own size.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "detail/collective.hpp"
#include "detail/counts.hpp"
#include "schedule/automatic.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Gatherv : detail::collective_interface<Gatherv<Schedule, Check, Progress>, Progress> {
  using schedule_type = Schedule;

  // The forms below are reached as coll(c, ...) (blocking), coll.start([policy,]
  // c, ...) (an hpcoll::request) and Coll::persistent([policy,] c, ...).
private:
  friend detail::collective_interface<Gatherv, Progress>;

  /// At the root, rank q's `in` lands at out[displs[q]], counts[q] elements;
  /// out, counts and displs are ignored elsewhere (they may be empty).
  template <class Launch, detail::input_range In, detail::output_range Out, detail::input_range Counts,
            detail::input_range Displs>
  static auto call(Launch launch, const communicator& c, const In& in, Out&& out, const Counts& counts,
                   const Displs& displs, int root) {
    static_assert(std::same_as<std::ranges::range_value_t<In>, std::ranges::range_value_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    const detail::counts_view n(counts, "counts"), d(displs, "displacements");
    detail::argument_check args;
    args.root(root, c.size());
    if (c.rank() == root) {
      args.require(n.problem().empty() && d.problem().empty(), n.problem(), d.problem());
      detail::check_blocks(args, n.span(), d.span(), output.size(), c.size(), "receive");
      if (args.problem().empty())
        args.require(n.span()[static_cast<std::size_t>(root)] == input.size(), "the root sends ", input.size(),
                     " elements but expects ", n.span()[static_cast<std::size_t>(root)], " from itself");
      args.disjoint(input, std::span<const std::ranges::range_value_t<In>>(output));
    }
    return run(launch, c, input.data(), input.size(), output, n.span(), d.span(), false, root, args);
  }

  /// Blocks packed in rank order at the root (displacements are prefix sums).
  template <class Launch, detail::input_range In, detail::output_range Out, detail::input_range Counts>
  static auto call(Launch launch, const communicator& c, const In& in, Out&& out, const Counts& counts, int root) {
    const detail::counts_view n(counts, "counts");
    return call(launch, c, in, std::forward<Out>(out), n.span(), detail::packed_displacements(n.span()), root);
  }

  /// In place, at the root only: its own block is already at out[displs[root]].
  template <class Launch, detail::output_range Out, detail::input_range Counts, detail::input_range Displs>
  static auto call(Launch launch, const communicator& c, in_place_t, Out&& out, const Counts& counts,
                   const Displs& displs, int root) {
    const auto output = detail::output_span(out);
    const detail::counts_view n(counts, "counts"), d(displs, "displacements");
    detail::argument_check args;
    args.root(root, c.size());
    args.require(c.rank() == root, "only the root may use the in-place form");
    args.require(n.problem().empty() && d.problem().empty(), n.problem(), d.problem());
    detail::check_blocks(args, n.span(), d.span(), output.size(), c.size(), "receive");
    const bool ok = args.problem().empty();
    const auto own = static_cast<std::size_t>(root);
    return run(launch, c, ok ? output.data() + d.span()[own] : output.data(), ok ? n.span()[own] : 0, output, n.span(),
               d.span(), true, root, args);
  }

  template <class Launch, class T>
  static auto run(Launch launch, const communicator& c, const T* input, std::size_t count, std::span<T> output,
                  std::span<const std::size_t> counts, std::span<const std::size_t> displs, bool in_place, int root,
                  const detail::argument_check& args) {
    detail::static_checks<Schedule, gatherv_shape, T>();
    const bool at_root = c.rank() == root && args.problem().empty();
    const gatherv_shape shape{c.rank(), c.size(), root, count, at_root ? counts : std::span<const std::size_t>{},
                              at_root ? displs : std::span<const std::size_t>{}, in_place, sizeof(T)};
    const detail::call_signature sig{root, -1, 0};
    return detail::run_collective<Schedule, Check>(
        launch, c, shape, args, sig, input, output.data(), detail::no_op{},
        [&] { return detail::gatherv_count_problem(c, root, counts, count); });
  }
};

/// hpcoll::gatherv(c, in, out, counts, [displs,] root) and (c, in_place, out, counts, displs, root).
template <class... Args>
void gatherv(const communicator& c, Args&&... args) {
  Gatherv<>{}(c, std::forward<Args>(args)...);
}

/// hpcoll::igatherv([policy,] c, ...): the nonblocking form, same arguments; returns
/// an hpcoll::request. The policy is progress::manual unless given as a
/// template argument (igatherv<progress::thread>(c, ...)) or first argument.
template <progress_policy P = progress::manual, class... Args>
request igatherv(const communicator& c, Args&&... args) {
  return Gatherv<schedule::automatic, check::from_env, P>{}.start(c, std::forward<Args>(args)...);
}
template <progress_policy P, class... Args>
request igatherv(P, const communicator& c, Args&&... args) {
  return igatherv<P>(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
