// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::Gatherv — the root receives every rank's block, each of its own size.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../entry/collective.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Gatherv : detail::collective_interface<Gatherv<Schedule, Check, Progress>, Schedule, Check, Progress> {
  using schedule_type = Schedule;

  /// At the root, rank q's `in` lands at out[displs[q]], counts[q] elements;
  /// out, counts and displs are ignored elsewhere (they may be empty).
  template <detail::input_range In, detail::output_range Out, detail::input_range Counts, detail::input_range Displs>
  static auto prepare(const communicator& c, const In& in, Out&& out, const Counts& counts, const Displs& displs,
                      int root) {
    call_type<detail::element_t<In>> call;
    detail::argument_check conversion;
    const auto n = detail::as_sizes(counts, call.kept[0], conversion, "counts");
    const auto d = detail::as_sizes(displs, call.kept[1], conversion, "displacements");
    make(call, c, in, std::forward<Out>(out), n, d, conversion, root);
    return call;
  }

  /// Blocks packed in rank order at the root (displacements are prefix sums).
  template <detail::input_range In, detail::output_range Out, detail::input_range Counts>
  static auto prepare(const communicator& c, const In& in, Out&& out, const Counts& counts, int root) {
    call_type<detail::element_t<In>> call;
    detail::argument_check conversion;
    const auto n = detail::as_sizes(counts, call.kept[0], conversion, "counts");
    make(call, c, in, std::forward<Out>(out), n, detail::packed_displacements(n, call.kept[1]), conversion, root);
    return call;
  }

  /// In place, at the root only: its own block is already at out[displs[root]].
  template <detail::output_range Out, detail::input_range Counts, detail::input_range Displs>
  static auto prepare(const communicator& c, in_place_t, Out&& out, const Counts& counts, const Displs& displs,
                      int root) {
    const auto output = detail::output_span(out);
    call_type<detail::element_t<Out>> call;
    detail::argument_check conversion;
    const auto n = detail::as_sizes(counts, call.kept[0], conversion, "counts");
    const auto d = detail::as_sizes(displs, call.kept[1], conversion, "displacements");
    call.args.root(root, c.size());
    call.args.require(c.rank() == root, "only the root may use the in-place form");
    call.args.require(conversion.ok(), conversion.problem());
    detail::check_blocks(call.args, n, d, output.size(), c.size(), "receive");
    const bool ok = call.args.ok();
    const auto own = static_cast<std::size_t>(root);
    fill(call, c, ok && n[own] ? output.data() + d[own] : output.data(), ok ? n[own] : 0, output, n, d, true, root);
    return call;
  }

  /// Checked mode: the root's counts[q] must equal rank q's send count.
  static std::string count_problem(const communicator& c, const gatherv_shape& s) {
    const auto p = static_cast<std::size_t>(c.size());
    std::vector<std::uint64_t> all(c.rank() == s.root ? p : 0);
    for (std::size_t i = 0; i < all.size() && i < s.counts.size(); ++i) all[i] = s.counts[i];
    std::uint64_t expected = 0;
    HPCOLL_MPI(MPI_Scatter, all.data(), 1, MPI_UINT64_T, &expected, 1, MPI_UINT64_T, s.root, c.native());
    detail::argument_check args;
    args.require(expected == s.send_count, "rank ", c.rank(), " sends ", s.send_count, " elements, the root expects ",
                 expected);
    return std::string(args.problem());
  }

private:
  template <class T>
  using call_type = detail::prepared_call<gatherv_shape, T, detail::no_op, 2>;

  /// The call from its counts and displacements as std::size_t (`conversion`:
  /// a problem met converting them, reported first).
  template <class T, detail::input_range In, detail::output_range Out>
  static void make(call_type<T>& call, const communicator& c, const In& in, Out&& out, std::span<const std::size_t> n,
                   std::span<const std::size_t> d, const detail::argument_check& conversion, int root) {
    static_assert(std::same_as<detail::element_t<In>, detail::element_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    call.args.root(root, c.size());
    if (c.rank() == root) {
      call.args.require(conversion.ok(), conversion.problem());
      detail::check_blocks(call.args, n, d, output.size(), c.size(), "receive");
      if (call.args.ok())
        call.args.require(n[static_cast<std::size_t>(root)] == input.size(), "the root sends ", input.size(),
                          " elements but expects ", n[static_cast<std::size_t>(root)], " from itself");
      call.args.disjoint(input, std::span<const T>(output));
    }
    fill(call, c, input.data(), input.size(), output, n, d, false, root);
  }

  /// The shape of the call; a malformed call runs no plan, so its shape holds no counts.
  template <class T>
  static void fill(call_type<T>& call, const communicator& c, const T* input, std::size_t count, std::span<T> output,
                   std::span<const std::size_t> counts, std::span<const std::size_t> displs, bool in_place, int root) {
    const bool at_root = c.rank() == root && call.args.ok();
    const std::span<const std::size_t> none;
    call.set({c.rank(), c.size(), root, count, at_root ? counts : none, at_root ? displs : none, in_place, sizeof(T)},
             input, output.data(), {root, -1, 0});
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
