// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::Bcast — the root's buffer is copied to every rank.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "../entry/collective.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env,
          progress_policy Progress = progress::manual>
struct Bcast : detail::collective_interface<Bcast<Schedule, Check, Progress>, Schedule, Check, Progress> {
  using schedule_type = Schedule;

  /// buf: the data at the root, overwritten with it everywhere else.
  template <detail::output_range Buf>
  static auto prepare(const communicator& c, Buf&& buf, int root) {
    const auto buffer = detail::output_span(buf);
    using T = typename decltype(buffer)::value_type;
    detail::prepared_call<bcast_shape, T> call;
    call.set({c.rank(), c.size(), root, buffer.size(), sizeof(T)}, nullptr, buffer.data(),
             {root, static_cast<std::int64_t>(buffer.size()), 0});
    call.args.root(root, c.size());
    return call;
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
