// SPDX-License-Identifier: BSD-3-Clause
// A recorded plan (what a repeated blocking call replays) holds its plan's
// steps in the same order in fewer rounds: rounds left empty are dropped, and
// a round of local steps only runs as the prelude of the round after it. The
// messages stay in the rounds they were in, with their round's own local
// steps. Checked on every rank of many schedules and sizes, with no MPI.
#include <doctest/doctest.h>

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <hpcoll/exec/recorded_plan.hpp>
#include <hpcoll/plan/plan_for.hpp>
#include <hpcoll/schedule/all.hpp>
#include <hpcoll/schedule/properties.hpp>

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace hana = boost::hana;
namespace S = hpcoll::schedule;
using hpcoll::step;

namespace {

bool same_step(const step& x, const step& y) {
  return x.kind == y.kind && x.incoming_left == y.incoming_left && x.peer == y.peer && x.a == y.a && x.b == y.b &&
         x.dst == y.dst;
}
bool same_steps(std::span<const step> x, std::span<const step> y) {
  return std::equal(x.begin(), x.end(), y.begin(), y.end(), same_step);
}
bool local_only(std::span<const step> steps) {
  return std::none_of(steps.begin(), steps.end(), [](const step& s) { return s.is_comm(); });
}

/// What one sweep saw, to show it met the cases that matter.
struct seen {
  int preludes = 0;                ///< rounds with a prelude
  int preludes_before_waitall = 0; ///< of them, rounds of more than one send or receive
  int rounds_saved = 0;
  int scratch_left_out = 0;        ///< plans with scratch whose steps here name none
};

/// The plan's non-empty steps, round by round.
template <class Plan>
std::vector<std::vector<step>> plan_rounds(const Plan& plan) {
  std::vector<std::vector<step>> rounds(static_cast<std::size_t>(plan.rounds()));
  for (int r = 0; r < plan.rounds(); ++r)
    plan.round(r, hpcoll::step_sink(rounds[static_cast<std::size_t>(r)], hpcoll::step_sink::empty_steps::skip));
  return rounds;
}

template <class Plan>
void check_recording(const Plan& plan, const std::string& where, seen& saw) {
  hpcoll::detail::recorded_plan recorded;
  REQUIRE_MESSAGE(recorded.record(plan, 1u << 20), where);
  const auto original = plan_rounds(plan);

  std::vector<step> all_original, all_recorded;
  for (const auto& r : original) all_original.insert(all_original.end(), r.begin(), r.end());
  for (const auto& r : recorded.rounds()) {
    const auto steps = recorded.steps(r);
    all_recorded.insert(all_recorded.end(), steps.begin(), steps.end());
  }
  CHECK_MESSAGE(same_steps(all_original, all_recorded), where, ": the recorded steps differ from the plan's");
  CHECK_MESSAGE(recorded.rounds().size() <= original.size(), where);
  // Scratch as the plan says, unless no step of this rank names it.
  const bool names_scratch = std::any_of(all_original.begin(), all_original.end(), [](const step& s) {
    return s.a.buf == hpcoll::buffer::scratch || s.b.buf == hpcoll::buffer::scratch ||
           s.dst.buf == hpcoll::buffer::scratch;
  });
  CHECK_MESSAGE(recorded.scratch_elems() == (names_scratch ? plan.scratch_elems() : 0), where);
  if (plan.scratch_elems() > 0 && !names_scratch) ++saw.scratch_left_out;

  // Each recorded round after its prelude is one round of the plan, in order;
  // the plan rounds between two of them are local steps only, and are the prelude.
  std::size_t next = 0;  // the plan round the walk has reached
  for (std::size_t i = 0; i < recorded.rounds().size(); ++i) {
    const auto& r = recorded.rounds()[i];
    const auto steps = recorded.steps(r);
    const std::size_t prelude = r.summary.prelude;
    const std::string round_where = where + ", recorded round " + std::to_string(i);
    CHECK_MESSAGE(!steps.empty(), round_where, " is empty");
    REQUIRE_MESSAGE(prelude <= steps.size(), round_where);
    CHECK_MESSAGE(local_only(steps.first(prelude)), round_where, ": a message in the prelude");
    const auto body = steps.subspan(prelude);
    if (prelude > 0) {
      CHECK_MESSAGE(!local_only(body), round_where, ": a prelude before a round without messages");
      ++saw.preludes;
      if (!r.summary.exchanges) ++saw.preludes_before_waitall;
    }
    if (local_only(body)) {
      // A round of local steps only is kept as a round of its own when it is the last.
      CHECK_MESSAGE(i + 1 == recorded.rounds().size(), round_where, ": local steps only, before the last round");
      continue;
    }
    std::vector<step> skipped;  // the plan's rounds walked past: they form the prelude
    while (next < original.size() && !same_steps(original[next], body)) {
      CHECK_MESSAGE(local_only(original[next]), round_where, ": plan round ", next, " with messages is missing");
      skipped.insert(skipped.end(), original[next].begin(), original[next].end());
      ++next;
    }
    REQUIRE_MESSAGE(next < original.size(), round_where, ": not a round of the plan");
    CHECK_MESSAGE(same_steps(skipped, steps.first(prelude)), round_where, ": the prelude is not the rounds before it");
    ++next;
  }
  saw.rounds_saved += static_cast<int>(original.size() - recorded.rounds().size());
}

constexpr int max_p = 9;

std::vector<std::size_t> counts_for(int p) {
  const auto n = static_cast<std::size_t>(p);
  return {0, 1, n - 1, n + 1, 2 * n + 3};
}

/// Every rank of every size up to max_p, every count of counts_for, every
/// root when `rooted`.
template <class Shape, bool rooted = true, class Schedules, class ShapeOf>
seen sweep(Schedules schedules, ShapeOf shape_of) {
  seen saw;
  hana::for_each(schedules, [&](auto s) {
    using Schedule = typename decltype(s)::type;
    for (int p = 1; p <= max_p; ++p)
      for (std::size_t n : counts_for(p))
        for (int root = 0; root < (rooted ? p : 1); ++root)
          for (int rank = 0; rank < p; ++rank) {
            const Shape shape = shape_of(rank, p, root, n);
            const std::string where = hpcoll::schedule_name<Schedule>() + ", p " + std::to_string(p) +
                                      (rooted ? ", root " + std::to_string(root) : std::string()) + ", rank " +
                                      std::to_string(rank) + ", " + std::to_string(n) + " elements";
            check_recording(hpcoll::plan_for<Schedule>(shape), where, saw);
          }
  });
  return saw;
}

}  // namespace

TEST_CASE("recorded_plan.bcast") {
  sweep<hpcoll::bcast_shape>(hana::tuple_t<S::linear, S::binomial, S::scatter_ring_allgather, S::pipeline<2>>,
                             [](int rank, int p, int root, std::size_t n) {
                               return hpcoll::bcast_shape{rank, p, root, n};
                             });
}

TEST_CASE("recorded_plan.reduce") {
  sweep<hpcoll::reduce_shape>(hana::tuple_t<S::linear, S::binomial, S::rabenseifner_reduce>,
                              [](int rank, int p, int root, std::size_t n) {
                                return hpcoll::reduce_shape{rank, p, root, n};
                              });
}

// Recursive doubling sizes its scratch for every rank; at two ranks the
// partner's value lands in the output.
TEST_CASE("recorded_plan.allreduce") {
  const seen saw = sweep<hpcoll::allreduce_shape, false>(
      hana::tuple_t<S::recursive_doubling, S::ring, S::rabenseifner>,
      [](int rank, int p, int, std::size_t n) { return hpcoll::allreduce_shape{rank, p, n}; });
  CHECK(saw.scratch_left_out > 0);

  hpcoll::detail::recorded_plan recorded;
  const auto two_ranks = hpcoll::plan_for<S::recursive_doubling>(hpcoll::allreduce_shape{0, 2, 4});
  REQUIRE(two_ranks.scratch_elems() == 4);
  REQUIRE(recorded.record(two_ranks, 64));
  CHECK(recorded.scratch_elems() == 0);
}

// The allgather copies its own block in a round of its own: the prelude of
// its first exchange, posted as messages (linear) or sent and received at once.
TEST_CASE("recorded_plan.allgather") {
  const seen saw = sweep<hpcoll::allgather_shape, false>(
      hana::tuple_t<S::linear, S::ring, S::recursive_doubling, S::bruck>,
      [](int rank, int p, int, std::size_t n) { return hpcoll::allgather_shape{rank, p, n}; });
  CHECK(saw.preludes > 0);
  CHECK(saw.preludes_before_waitall > 0);
  CHECK(saw.rounds_saved > 0);

  // Two ranks: one round, the copy and then the exchange.
  hpcoll::detail::recorded_plan recorded;
  REQUIRE(recorded.record(hpcoll::plan_for<S::recursive_doubling>(hpcoll::allgather_shape{0, 2, 4}), 64));
  REQUIRE(recorded.rounds().size() == 1);
  CHECK(recorded.rounds()[0].summary.prelude == 1);
  CHECK(recorded.rounds()[0].summary.exchanges);
}

TEST_CASE("recorded_plan.reduce_scatter_block") {
  sweep<hpcoll::reduce_scatter_block_shape, false>(hana::tuple_t<S::linear, S::ring, S::recursive_halving>,
                                            [](int rank, int p, int, std::size_t n) {
                                              return hpcoll::reduce_scatter_block_shape{rank, p, n};
                                            });
}

TEST_CASE("recorded_plan.alltoall") {
  sweep<hpcoll::alltoall_shape, false>(hana::tuple_t<S::linear, S::pairwise, S::bruck>,
                                [](int rank, int p, int, std::size_t n) {
                                  return hpcoll::alltoall_shape{rank, p, n};
                                });
}
