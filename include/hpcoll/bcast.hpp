// hpcoll::Bcast — the root's buffer is copied to every rank.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "detail/collective.hpp"
#include "schedule/automatic.hpp"

namespace hpcoll {

template <class Schedule = schedule::automatic, check_policy Check = check::from_env>
struct Bcast {
  using schedule_type = Schedule;

  /// buf: the data at the root, overwritten with it everywhere else.
  template <detail::output_range Buf>
  void operator()(const communicator& c, Buf&& buf, int root) const {
    const auto buffer = detail::output_span(buf);
    using T = typename decltype(buffer)::value_type;
    detail::static_checks<Schedule, bcast_shape, T>();
    detail::argument_check args;
    args.root(root, c.size());
    const bcast_shape shape{c.rank(), c.size(), root, buffer.size(), sizeof(T)};
    const detail::call_signature sig{root, static_cast<std::int64_t>(buffer.size()), 0};
    detail::run_collective<Schedule, Check>(c, shape, args, sig, static_cast<const T*>(nullptr), buffer.data(),
                                            detail::no_op{});
  }
};

/// hpcoll::bcast(c, buf, root).
template <class... Args>
void bcast(const communicator& c, Args&&... args) {
  Bcast<>{}(c, std::forward<Args>(args)...);
}

}  // namespace hpcoll
