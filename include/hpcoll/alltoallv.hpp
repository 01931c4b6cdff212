// hpcoll::Alltoallv — all-to-all with a size and place per block.
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
struct Alltoallv : detail::collective_interface<Alltoallv<Schedule, Check, Progress>, Progress> {
  using schedule_type = Schedule;

  // The forms below are reached as coll(c, ...) (blocking), coll.start([policy,]
  // c, ...) (an hpcoll::request) and Coll::persistent([policy,] c, ...).
private:
  friend detail::collective_interface<Alltoallv, Progress>;

  /// Block j of `in` (send_counts[j] elements at send_displs[j]) goes to rank
  /// j; block i of `out` (recv_counts[i] at recv_displs[i]) comes from rank i.
  template <class Launch, detail::input_range In, detail::input_range SC, detail::input_range SD,
            detail::output_range Out, detail::input_range RC, detail::input_range RD>
  static auto call(Launch launch, const communicator& c, const In& in, const SC& send_counts, const SD& send_displs,
                   Out&& out, const RC& recv_counts, const RD& recv_displs) {
    static_assert(std::same_as<std::ranges::range_value_t<In>, std::ranges::range_value_t<Out>>,
                  "hpcoll: input and output must have the same element type");
    const auto input = detail::input_span(in);
    const auto output = detail::output_span(out);
    const detail::counts_view sc(send_counts, "send counts"), sd(send_displs, "send displacements"),
        rc(recv_counts, "receive counts"), rd(recv_displs, "receive displacements");
    detail::argument_check args;
    args.require(sc.problem().empty() && sd.problem().empty() && rc.problem().empty() && rd.problem().empty(),
                 sc.problem(), sd.problem(), rc.problem(), rd.problem());
    detail::check_blocks(args, sc.span(), sd.span(), input.size(), c.size(), "send");
    detail::check_blocks(args, rc.span(), rd.span(), output.size(), c.size(), "receive");
    args.disjoint(input, std::span<const std::ranges::range_value_t<In>>(output));
    return run(launch, c, input.data(), output, sc.span(), sd.span(), rc.span(), rd.span(), false, args);
  }

  /// In place: counts and displacements describe both what is sent from and
  /// what is received into buf (MPI_IN_PLACE semantics).
  template <class Launch, detail::output_range Buf, detail::input_range Counts, detail::input_range Displs>
  static auto call(Launch launch, const communicator& c, in_place_t, Buf&& buf, const Counts& counts,
                   const Displs& displs) {
    const auto buffer = detail::output_span(buf);
    const detail::counts_view n(counts, "counts"), d(displs, "displacements");
    detail::argument_check args;
    args.require(n.problem().empty() && d.problem().empty(), n.problem(), d.problem());
    detail::check_blocks(args, n.span(), d.span(), buffer.size(), c.size(), "buffer");
    return run(launch, c, buffer.data(), buffer, n.span(), d.span(), n.span(), d.span(), true, args);
  }

  template <class Launch, class T>
  static auto run(Launch launch, const communicator& c, const T* input, std::span<T> output,
                  std::span<const std::size_t> sc, std::span<const std::size_t> sd, std::span<const std::size_t> rc,
                  std::span<const std::size_t> rd, bool in_place, const detail::argument_check& args) {
    detail::static_checks<Schedule, alltoallv_shape, T>();
    // A malformed call runs no plan, so the plan need not see its counts.
    const bool ok = args.problem().empty();
    const std::span<const std::size_t> none;
    const alltoallv_shape shape{c.rank(), c.size(), ok ? sc : none, ok ? sd : none, ok ? rc : none, ok ? rd : none,
                                in_place, sizeof(T)};
    const detail::call_signature sig{-1, -1, in_place};
    return detail::run_collective<Schedule, Check>(launch, c, shape, args, sig, input, output.data(), detail::no_op{},
                                                   [&] { return detail::alltoallv_count_problem(c, sc, rc); });
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
