// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::Alltoallv — all-to-all with a size and place per block.
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
struct Alltoallv : detail::collective_interface<Alltoallv<Schedule, Check, Progress>, Schedule, Check, Progress> {
  using schedule_type = Schedule;

  /// Block j of `in` (send_counts[j] elements at send_displs[j]) goes to rank
  /// j; block i of `out` (recv_counts[i] at recv_displs[i]) comes from rank i.
  template <detail::input_range In, detail::input_range SC, detail::input_range SD, detail::output_range Out,
            detail::input_range RC, detail::input_range RD>
  static auto prepare(const communicator& c, const In& in, const SC& send_counts, const SD& send_displs, Out&& out,
                      const RC& recv_counts, const RD& recv_displs) {
    static_assert(std::same_as<detail::element_t<In>, detail::element_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    call_type<detail::element_t<In>> call;
    const auto sc = detail::as_sizes(send_counts, call.kept[0], call.args, "send counts");
    const auto sd = detail::as_sizes(send_displs, call.kept[1], call.args, "send displacements");
    const auto rc = detail::as_sizes(recv_counts, call.kept[2], call.args, "receive counts");
    const auto rd = detail::as_sizes(recv_displs, call.kept[3], call.args, "receive displacements");
    detail::check_blocks(call.args, sc, sd, input.size(), c.size(), "send");
    detail::check_blocks(call.args, rc, rd, output.size(), c.size(), "receive");
    call.args.disjoint(input, std::span<const detail::element_t<In>>(output));
    fill(call, c, input.data(), output, sc, sd, rc, rd, false);
    return call;
  }

  /// In place: counts and displacements describe both what is sent from and
  /// what is received into buf (MPI_IN_PLACE semantics).
  template <detail::output_range Buf, detail::input_range Counts, detail::input_range Displs>
  static auto prepare(const communicator& c, in_place_t, Buf&& buf, const Counts& counts, const Displs& displs) {
    const auto buffer = detail::output_span(buf);
    call_type<detail::element_t<Buf>> call;
    const auto n = detail::as_sizes(counts, call.kept[0], call.args, "counts");
    const auto d = detail::as_sizes(displs, call.kept[1], call.args, "displacements");
    detail::check_blocks(call.args, n, d, buffer.size(), c.size(), "buffer");
    fill(call, c, buffer.data(), buffer, n, d, n, d, true);
    return call;
  }

  /// Checked mode: what rank i sends to j must be what j receives from i.
  static std::string count_problem(const communicator& c, const alltoallv_shape& s) {
    const auto p = static_cast<std::size_t>(c.size());
    std::vector<std::uint64_t> sent(p, 0), announced(p, 0);
    for (std::size_t i = 0; i < p && i < s.send_counts.size(); ++i) sent[i] = s.send_counts[i];
    HPCOLL_MPI(MPI_Alltoall, sent.data(), 1, MPI_UINT64_T, announced.data(), 1, MPI_UINT64_T, c.native());
    detail::argument_check args;
    for (std::size_t i = 0; i < p && i < s.recv_counts.size(); ++i)
      args.require(announced[i] == s.recv_counts[i], "rank ", i, " sends ", announced[i], " elements to rank ",
                   c.rank(), ", which expects ", s.recv_counts[i]);
    return std::string(args.problem());
  }

private:
  template <class T>
  using call_type = detail::prepared_call<alltoallv_shape, T, detail::no_op, 4>;

  /// The shape of the call; a malformed call runs no plan, so its shape holds no counts.
  template <class T>
  static void fill(call_type<T>& call, const communicator& c, const T* input, std::span<T> output,
                   std::span<const std::size_t> sc, std::span<const std::size_t> sd, std::span<const std::size_t> rc,
                   std::span<const std::size_t> rd, bool in_place) {
    const bool ok = call.args.ok();
    const std::span<const std::size_t> none;
    call.set({c.rank(), c.size(), ok ? sc : none, ok ? sd : none, ok ? rc : none, ok ? rd : none, in_place, sizeof(T)},
             input, output.data(), {-1, -1, in_place});
  }
};

/// hpcoll::alltoallv(c, in, send_counts, send_displs, out, recv_counts, recv_displs)
/// and alltoallv(c, in_place, buf, counts, displs).
template <class... Args>
void alltoallv(const communicator& c, Args&&... args) {
  Alltoallv<>{}(c, std::forward<Args>(args)...);
}

/// hpcoll::ialltoallv([policy,] c, ...): the nonblocking form, same arguments; returns
/// an hpcoll::request. The policy is progress::manual unless given as a
/// template argument (ialltoallv<progress::thread>(c, ...)) or first argument.
template <progress_policy P = progress::manual, class... Args>
request ialltoallv(const communicator& c, Args&&... args) {
  return Alltoallv<schedule::automatic, check::from_env, P>{}.start(c, std::forward<Args>(args)...);
}
template <progress_policy P, class... Args>
request ialltoallv(P, const communicator& c, Args&&... args) {
  return ialltoallv<P>(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
