// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::Allgatherv — every rank receives every rank's block, each of its own size.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../entry/collective.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Allgatherv
    : detail::collective_interface<Allgatherv<Schedule, Check, Progress>, Schedule, Check, Progress> {
  using schedule_type = Schedule;

  /// Rank q's `in` lands at out[displs[q]], counts[q] elements, on every
  /// rank. counts are the same on every rank; displs are each rank's own.
  template <detail::input_range In, detail::output_range Out, detail::input_range Counts, detail::input_range Displs>
  static auto prepare(const communicator& c, const In& in, Out&& out, const Counts& counts, const Displs& displs) {
    call_type<detail::element_t<Out>> call;
    detail::argument_check conversion;
    const auto n = detail::as_sizes(counts, call.kept[0], conversion, "counts");
    const auto d = detail::as_sizes(displs, call.kept[1], conversion, "displacements");
    make(call, c, in, std::forward<Out>(out), n, d, conversion);
    return call;
  }

  /// Blocks packed in rank order (displacements are prefix sums of counts).
  template <detail::input_range In, detail::output_range Out, detail::input_range Counts>
  static auto prepare(const communicator& c, const In& in, Out&& out, const Counts& counts) {
    call_type<detail::element_t<Out>> call;
    detail::argument_check conversion;
    const auto n = detail::as_sizes(counts, call.kept[0], conversion, "counts");
    make(call, c, in, std::forward<Out>(out), n, detail::packed_displacements(n, call.kept[1]), conversion);
    return call;
  }

  /// In place: this rank's block is already at out[displs[rank]].
  template <detail::output_range Out, detail::input_range Counts, detail::input_range Displs>
  static auto prepare(const communicator& c, in_place_t, Out&& out, const Counts& counts, const Displs& displs) {
    call_type<detail::element_t<Out>> call;
    detail::argument_check conversion;
    const auto n = detail::as_sizes(counts, call.kept[0], conversion, "counts");
    const auto d = detail::as_sizes(displs, call.kept[1], conversion, "displacements");
    make(call, c, in_place, std::forward<Out>(out), n, d, conversion);
    return call;
  }

  /// In place, blocks packed in rank order.
  template <detail::output_range Out, detail::input_range Counts>
  static auto prepare(const communicator& c, in_place_t, Out&& out, const Counts& counts) {
    call_type<detail::element_t<Out>> call;
    detail::argument_check conversion;
    const auto n = detail::as_sizes(counts, call.kept[0], conversion, "counts");
    make(call, c, in_place, std::forward<Out>(out), n, detail::packed_displacements(n, call.kept[1]), conversion);
    return call;
  }

  /// Checked mode: every rank must have been given the same counts (the
  /// signature compares their sum; this, the blocks).
  static std::string count_problem(const communicator& c, const allgatherv_shape& s) {
    const std::int64_t mine = detail::fingerprint(
        std::string_view(reinterpret_cast<const char*>(s.counts.data()), s.counts.size_bytes()));
    const std::int64_t pair[2] = {mine, -mine};
    std::int64_t extremes[2] = {0, 0};
    HPCOLL_MPI(MPI_Allreduce, pair, extremes, 2, MPI_INT64_T, MPI_MAX, c.native());
    detail::argument_check args;
    args.require(extremes[0] == -extremes[1], "ranks were given different counts (with the same sum)");
    return std::string(args.problem());
  }

private:
  template <class T>
  using call_type = detail::prepared_call<allgatherv_shape, T, detail::no_op, 2>;

  /// The call from its counts and displacements as std::size_t (`conversion`:
  /// a problem met converting them, reported first).
  template <class T, detail::input_range In, detail::output_range Out>
  static void make(call_type<T>& call, const communicator& c, const In& in, Out&& out, std::span<const std::size_t> n,
                   std::span<const std::size_t> d, const detail::argument_check& conversion) {
    static_assert(std::same_as<detail::element_t<In>, detail::element_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    check(call, c, n, d, output.size(), conversion);
    if (call.args.ok())
      call.args.require(n[static_cast<std::size_t>(c.rank())] == input.size(), "rank ", c.rank(), " sends ",
                        input.size(), " elements but counts[", c.rank(), "] is ", n[static_cast<std::size_t>(c.rank())]);
    call.args.disjoint(input, std::span<const T>(output));
    fill(call, c, input.data(), input.size(), output, n, d, false);
  }
  template <class T, detail::output_range Out>
  static void make(call_type<T>& call, const communicator& c, in_place_t, Out&& out, std::span<const std::size_t> n,
                   std::span<const std::size_t> d, const detail::argument_check& conversion) {
    const auto output = detail::output_span(out);
    check(call, c, n, d, output.size(), conversion);
    const bool ok = call.args.ok();
    const auto own = static_cast<std::size_t>(c.rank());
    fill(call, c, ok && n[own] ? output.data() + d[own] : output.data(), ok ? n[own] : 0, output, n, d, true);
  }

  /// Counts and displacements: p of each, every block inside the output, and
  /// no two blocks sharing an element (the schedules forward blocks from
  /// where they landed).
  template <class T>
  static void check(call_type<T>& call, const communicator& c, std::span<const std::size_t> n,
                    std::span<const std::size_t> d, std::size_t extent, const detail::argument_check& conversion) {
    call.args.require(conversion.ok(), conversion.problem());
    detail::check_blocks(call.args, n, d, extent, c.size(), "receive");
    if (!call.args.ok()) return;
    // The common case, non-empty blocks one after the other: no sort, no allocation.
    bool ascending = true;
    for (std::size_t q = 0, last = n.size(); q < n.size() && ascending; ++q) {
      if (n[q] == 0) continue;
      ascending = last == n.size() || d[last] + n[last] <= d[q];
      last = q;
    }
    if (ascending) return;
    std::vector<std::size_t> order;
    for (std::size_t q = 0; q < n.size(); ++q)
      if (n[q] > 0) order.push_back(q);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return d[a] < d[b]; });
    for (std::size_t i = 1; i < order.size(); ++i) {
      const std::size_t a = order[i - 1], b = order[i];
      call.args.require(d[a] + n[a] <= d[b], "receive blocks ", a, " (", n[a], " elements at ", d[a], ") and ", b,
                        " (", n[b], " elements at ", d[b], ") overlap");
    }
  }

  /// The shape of the call; a malformed call runs no plan, so its shape holds no counts.
  template <class T>
  static void fill(call_type<T>& call, const communicator& c, const T* input, std::size_t count, std::span<T> output,
                   std::span<const std::size_t> counts, std::span<const std::size_t> displs, bool in_place) {
    const bool ok = call.args.ok();
    // The thread's, not the call's: no allocation per call. A call is run
    // (blocking) or copied into its request (nonblocking) before the thread
    // prepares another.
    thread_local std::vector<std::size_t> starts;
    if (ok) {
      starts.resize(counts.size() + 1);
      starts[0] = 0;
      std::partial_sum(counts.begin(), counts.end(), starts.begin() + 1);
    }
    const std::span<const std::size_t> none;
    const std::int64_t total = ok ? static_cast<std::int64_t>(starts.back()) : -1;
    call.set({c.rank(), c.size(), count, ok ? counts : none, ok ? displs : none, ok ? starts : none, in_place,
              sizeof(T), ok && packed_in_rank_order(displs, starts)},
             input, output.data(), {-1, total, in_place});
  }
};

/// hpcoll::allgatherv(c, in, out, counts, [displs]) and (c, in_place, out, counts, [displs]).
template <class... Args>
void allgatherv(const communicator& c, Args&&... args) {
  Allgatherv<>{}(c, std::forward<Args>(args)...);
}

/// hpcoll::iallgatherv([policy,] c, ...): the nonblocking form, same arguments; returns
/// an hpcoll::request. The policy is progress::manual unless given as a
/// template argument (iallgatherv<progress::thread>(c, ...)) or first argument.
template <progress_policy P = progress::manual, class... Args>
request iallgatherv(const communicator& c, Args&&... args) {
  return Allgatherv<schedule::automatic, check::from_env, P>{}.start(c, std::forward<Args>(args)...);
}
template <progress_policy P, class... Args>
request iallgatherv(P, const communicator& c, Args&&... args) {
  return iallgatherv<P>(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
