// hpcoll::Bcast — the root's buffer is copied to every rank.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "detail/collective.hpp"
#include "schedule/automatic.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Bcast : detail::collective_interface<Bcast<Schedule, Check, Progress>, Progress> {
  using schedule_type = Schedule;

  // The forms below are reached as coll(c, ...) (blocking), coll.start([policy,]
  // c, ...) (an hpcoll::request) and Coll::persistent([policy,] c, ...).
private:
  friend detail::collective_interface<Bcast, Progress>;

  /// buf: the data at the root, overwritten with it everywhere else.
  template <class Launch, detail::output_range Buf>
  static auto call(Launch launch, const communicator& c, Buf&& buf, int root) {
    const auto buffer = detail::output_span(buf);
    using T = typename decltype(buffer)::value_type;
    detail::static_checks<Schedule, bcast_shape, T>();
    detail::argument_check args;
    args.root(root, c.size());
    const bcast_shape shape{c.rank(), c.size(), root, buffer.size(), sizeof(T)};
    const detail::call_signature sig{root, static_cast<std::int64_t>(buffer.size()), 0};
    return detail::run_collective<Schedule, Check>(launch, c, shape, args, sig, static_cast<const T*>(nullptr),
                                                   buffer.data(), detail::no_op{});
  }
};

/// hpcoll::bcast(c, buf, root).
template <class... Args>
void bcast(const communicator& c, Args&&... args) {
  Bcast<>{}(c, std::forward<Args>(args)...);
}

/// hpcoll::ibcast([policy,] c, ...): the nonblocking form, same arguments; returns
/// an hpcoll::request. The policy is progress::manual unless given as a
/// template argument (ibcast<progress::thread>(c, ...)) or first argument.
template <progress_policy P = progress::manual, class... Args>
request ibcast(const communicator& c, Args&&... args) {
  return Bcast<schedule::automatic, check::from_env, P>{}.start(c, std::forward<Args>(args)...);
}
template <progress_policy P, class... Args>
request ibcast(P, const communicator& c, Args&&... args) {
  return ibcast<P>(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
