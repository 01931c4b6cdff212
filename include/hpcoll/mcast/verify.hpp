// SPDX-License-Identifier: BSD-3-Clause
// The symbolic verifier (analysis/verify.hpp) for the multicast: its plans,
// every rank's, run in one process on symbolic data.
#pragma once

#include <cstddef>
#include <sstream>

#include "../analysis/verify.hpp"
#include "plan.hpp"
#include "rank_set.hpp"

namespace hpcoll::verify {

/// A multicast from `master` to `members` (a set of p ranks without the
/// master): every member ends with the master's input, every other rank's
/// output stays untouched.
template <class S>
outcome mcast(const hpcoll::rank_set& members, int master, std::size_t count) {
  using namespace detail;
  const int p = members.size();
  std::ostringstream args;
  args << " master=" << master << " members={";
  for (int m : members.members()) args << (m == members.lowest() ? "" : ",") << m;
  args << "} count=" << count;
  return run<S, mcast_shape>(
      context("mcast", schedule_name<S>(), p, args.str()), p, true,
      [&](int r) { return mcast_shape{r, p, master, &members, count}; },
      [&](int r) { return separate(r == master ? count : 0, count); },
      [&](auto& m) { fill_input(m, master); },
      [&](auto& m, failure_log& log) {
        for (int r = 0; r < p; ++r)
          for (std::size_t i = 0; i < count; ++i)
            if (members.contains(r) ? !expect_leaf(m, log, r, i, master, i) : !expect_untouched(m, log, r, i)) return;
      });
}

}  // namespace hpcoll::verify
