// SPDX-License-Identifier: BSD-3-Clause
// The symbolic verifier proves every schedule of every collective for every
// communicator size 1..128 and every root, with no MPI.
#include <doctest/doctest.h>

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <hpcoll/analysis/verify.hpp>
#include <hpcoll/hpcoll.hpp>
#include <hpcoll/mcast/verify.hpp>

#include <cstddef>
#include <random>
#include <type_traits>
#include <vector>

namespace hana = boost::hana;
namespace S = hpcoll::schedule;

namespace {

constexpr int max_p = 128;

/// Reports the first failure of a sweep (and counts the rest) so a broken
/// schedule does not flood the output.
struct sweep {
  int failures = 0;
  void operator()(const hpcoll::verify::outcome& o) {
    if (!o && failures++ == 0) FAIL_CHECK(o.failure);
  }
  ~sweep() { CHECK(failures == 0); }
};

/// Element counts worth trying at size p. Collectives that cut one vector
/// into p blocks need counts around p (blocks of 0, 1 and 2 elements, uneven
/// blocks); block collectives need block lengths 0, 1 and more than 1. Small
/// sizes get every case, large sizes the one that exercises most.
enum class counting { total, per_block };
std::vector<std::size_t> counts_for(int p, bool thorough, counting kind) {
  const auto n = static_cast<std::size_t>(p);
  if (kind == counting::per_block) return thorough ? std::vector<std::size_t>{0, 1, 3} : std::vector<std::size_t>{2};
  return thorough ? std::vector<std::size_t>{0, 1, n - 1, n + 1, 2 * n + 3} : std::vector<std::size_t>{n + 1};
}

/// Rooted collectives: every size, every root; every count up to size 16.
/// schedule::automatic is the exception: its plan runs the cost model over
/// every candidate on every rank (95 % of its sweep's time), so above size 16
/// it meets the first, the last and a middle root. The candidates it chooses
/// from are proved at every root.
template <class Schedule, class F>
void rooted(counting kind, F&& f) {
  for (int p = 1; p <= max_p; ++p)
    for (int root = 0; root < p; ++root) {
      if (std::is_same_v<Schedule, S::automatic> && p > 16 && root != 0 && root != p / 3 && root != p - 1) continue;
      for (std::size_t n : counts_for(p, p <= 16, kind)) f(p, root, n);
    }
}

template <class F>
void unrooted(counting kind, F&& f) {
  for (int p = 1; p <= max_p; ++p)
    for (std::size_t n : counts_for(p, p <= 32, kind)) f(p, n);
}

/// The (commutative, in place) variants to try: all four at small sizes; at
/// larger sizes one per root, rotating, so every variant meets every size.
template <class F>
void variants(int p, int root, F&& f) {
  for (int v = 0; v < 4; ++v)
    if (p <= 16 || v == root % 4) f(v / 2 == 1, v % 2 == 1);
}

constexpr auto bcast_schedules =
    hana::tuple_t<S::linear, S::binomial, S::scatter_ring_allgather, S::scatter_recursive_doubling_allgather,
                  S::scatter_allgather<S::binomial, S::bruck>, S::scatter_allgather<S::linear, S::linear>,
                  S::automatic>;
/// Segmented trees with segments of a few elements (the verifier's elements
/// are one byte), so most counts cut into several segments.
constexpr auto segmented_schedules =
    hana::tuple_t<S::pipeline<8>, S::pipeline<>, S::segmented_binary<16>, S::segmented_binomial<8>,
                  S::segmented_tree<S::knomial_tree<3>, 16>, S::knomial<3>, S::knomial<7>>;
/// Reduce schedules that keep rank order (any op) and those that need a commutative op.
constexpr auto ordered_reduce_schedules = hana::tuple_t<S::linear, S::binomial, S::automatic>;
constexpr auto commutative_reduce_schedules =
    hana::tuple_t<S::rabenseifner_reduce, S::reduce_scatter_gather<S::ring, S::binomial>>;
constexpr auto gather_schedules = hana::tuple_t<S::linear, S::linear_sync<3>, S::binomial, S::automatic>;
constexpr auto gatherv_schedules = hana::tuple_t<S::linear, S::linear_sync<2>, S::automatic>;
constexpr auto scatter_schedules = hana::tuple_t<S::linear, S::linear_sync<3>, S::binomial, S::automatic>;
/// Allreduce schedules that keep rank order (any op) and those that need a commutative op.
constexpr auto ordered_allreduce_schedules =
    hana::tuple_t<S::recursive_doubling, S::linear, S::reduce_bcast<S::binomial, S::binomial>,
                  S::reduce_bcast<S::binomial, S::scatter_ring_allgather>,
                  S::reduce_scatter_allgather<S::linear, S::recursive_doubling>, S::automatic>;
constexpr auto commutative_allreduce_schedules =
    hana::tuple_t<S::ring, S::segmented_ring<64>, S::rabenseifner,
                  S::reduce_scatter_allgather<S::recursive_halving, S::ring>,
                  S::reduce_scatter_allgather<S::ring, S::bruck>>;
constexpr auto allgather_schedules = hana::tuple_t<S::linear, S::ring, S::recursive_doubling, S::bruck, S::automatic>;
/// Allgatherv runs any allgather schedule over blocks of any sizes.
constexpr auto allgatherv_schedules = hana::tuple_t<S::linear, S::ring, S::recursive_doubling, S::bruck, S::automatic>;
constexpr auto ordered_rsb_schedules = hana::tuple_t<S::linear, S::automatic>;
constexpr auto commutative_rsb_schedules = hana::tuple_t<S::ring, S::segmented_ring<32>, S::recursive_halving>;
constexpr auto alltoall_schedules =
    hana::tuple_t<S::linear, S::linear_sync<2>, S::pairwise, S::bruck, S::automatic>;
constexpr auto alltoallv_schedules = hana::tuple_t<S::linear, S::linear_sync<3>, S::pairwise, S::automatic>;

/// A broken one-round broadcast for the self check: Steps::emit(shape, emit)
/// gives each rank's steps.
template <class Steps>
struct broken_bcast {
  static constexpr const char* name = Steps::name;
  struct plan_type {
    hpcoll::bcast_shape s;
    int rounds() const { return 1; }
    std::size_t scratch_elems() const { return 0; }
    template <class Emit>
    void round(int, Emit&& emit) const {
      Steps::emit(s, emit);
    }
  };
  static plan_type plan(const hpcoll::bcast_shape& s) { return {s}; }
};

/// The root sends to every rank but the last.
struct forgets_last_steps {
  static constexpr const char* name = "forgets_last";
  template <class Emit>
  static void emit(const hpcoll::bcast_shape& s, Emit& emit) {
    if (s.rank == s.root) {
      for (int r = 0; r + 1 < s.size; ++r)
        if (r != s.root) emit(hpcoll::step::send(r, hpcoll::out(0, s.count)));
    } else if (s.rank + 1 < s.size) {
      emit(hpcoll::step::recv(s.root, hpcoll::out(0, s.count)));
    }
  }
};
using forgets_last = broken_bcast<forgets_last_steps>;

/// Rank 1 receives the vector element by element and, in the same round,
/// forwards one of those elements.
struct forwards_too_early_steps {
  static constexpr const char* name = "forwards_too_early";
  template <class Emit>
  static void emit(const hpcoll::bcast_shape& s, Emit& emit) {
    const std::size_t forwarded = s.count / 2;
    for (std::size_t i = 0; i < s.count; ++i) {
      if (s.rank == s.root) emit(hpcoll::step::send(1, hpcoll::out(i, 1)));
      if (s.rank == 1) emit(hpcoll::step::recv(s.root, hpcoll::out(i, 1)));
    }
    if (s.rank == 1) emit(hpcoll::step::send(2, hpcoll::out(forwarded, 1)));
    if (s.rank == 2) emit(hpcoll::step::recv(1, hpcoll::out(forwarded, 1)));
  }
};
using forwards_too_early = broken_bcast<forwards_too_early_steps>;

/// Ranks 0 and 1 each wait for the other's message, which neither sends.
struct waits_for_each_other_steps {
  static constexpr const char* name = "waits_for_each_other";
  template <class Emit>
  static void emit(const hpcoll::bcast_shape& s, Emit& emit) {
    if (s.rank < 2) emit(hpcoll::step::recv(1 - s.rank, hpcoll::out(0, s.count)));
  }
};
using waits_for_each_other = broken_bcast<waits_for_each_other_steps>;

/// The root sends rank 1 one element, then two; rank 1 receives two, then one.
/// Between a pair of ranks messages match in posting order, so the first send
/// meets the first receive: a size mismatch. Rank 2's message to rank 1 of the
/// same round matches its own receive, whatever the order.
struct swapped_sizes_steps {
  static constexpr const char* name = "swapped_sizes";
  template <class Emit>
  static void emit(const hpcoll::bcast_shape& s, Emit& emit) {
    if (s.rank == 0) {
      emit(hpcoll::step::send(1, hpcoll::out(0, 1)));
      emit(hpcoll::step::send(1, hpcoll::out(1, 2)));
    } else if (s.rank == 1) {
      emit(hpcoll::step::recv(2, hpcoll::out(3, 1)));
      emit(hpcoll::step::recv(0, hpcoll::out(0, 2)));
      emit(hpcoll::step::recv(0, hpcoll::out(2, 1)));
    } else if (s.rank == 2) {
      emit(hpcoll::step::send(1, hpcoll::out(0, 1)));
    }
  }
};
using swapped_sizes = broken_bcast<swapped_sizes_steps>;

template <class Schedules>
void verify_bcast(Schedules schedules) {
  hana::for_each(schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    rooted<Schedule>(counting::total, [&](int p, int root, std::size_t n) { check(hpcoll::verify::bcast<Schedule>(p, root, n)); });
  });
}

template <class Schedules>
void verify_ordered_reduce(Schedules schedules) {
  hana::for_each(schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    rooted<Schedule>(counting::total, [&](int p, int root, std::size_t n) {
      variants(p, root, [&](bool commutative, bool in_place) {
        check(hpcoll::verify::reduce<Schedule>(p, root, n, commutative, in_place));
      });
    });
  });
}

}  // namespace

// The segmented trees are test cases of their own: each sweep takes minutes on a loaded machine.
TEST_CASE("verify.bcast") { verify_bcast(bcast_schedules); }
TEST_CASE("verify.bcast_segmented") { verify_bcast(segmented_schedules); }

TEST_CASE("verify.reduce_segmented") { verify_ordered_reduce(segmented_schedules); }

TEST_CASE("verify.reduce") {
  verify_ordered_reduce(ordered_reduce_schedules);
  hana::for_each(commutative_reduce_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    rooted<Schedule>(counting::total, [&](int p, int root, std::size_t n) {
      variants(p, root, [&](bool, bool in_place) { check(hpcoll::verify::reduce<Schedule>(p, root, n, true, in_place)); });
    });
  });
}

TEST_CASE("verify.gather") {
  hana::for_each(gather_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    rooted<Schedule>(counting::per_block, [&](int p, int root, std::size_t n) {
      for (bool in_place : {false, true}) check(hpcoll::verify::gather<Schedule>(p, root, n, in_place));
    });
  });
}

TEST_CASE("verify.gatherv") {
  hana::for_each(gatherv_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    rooted<Schedule>(counting::per_block, [&](int p, int root, std::size_t n) {
      // Uneven counts (some empty), blocks in reverse rank order with gaps.
      std::vector<std::size_t> counts(static_cast<std::size_t>(p)), displs(counts.size());
      std::size_t at = 0;
      for (int q = p - 1; q >= 0; --q) {
        const auto i = static_cast<std::size_t>(q);
        counts[i] = (i * 7 + n) % 4;
        displs[i] = at;
        at += counts[i] + 1;
      }
      for (bool in_place : {false, true}) check(hpcoll::verify::gatherv<Schedule>(p, root, counts, displs, in_place));
    });
  });
}

TEST_CASE("verify.scatter") {
  hana::for_each(scatter_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    rooted<Schedule>(counting::per_block, [&](int p, int root, std::size_t n) {
      for (bool in_place : {false, true}) check(hpcoll::verify::scatter<Schedule>(p, root, n, in_place));
    });
  });
}

TEST_CASE("verify.allreduce") {
  hana::for_each(ordered_allreduce_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    unrooted(counting::total, [&](int p, std::size_t n) {
      for (bool commutative : {false, true})
        for (bool in_place : {false, true})
          check(hpcoll::verify::allreduce<Schedule>(p, n, commutative, in_place));
    });
  });
  hana::for_each(commutative_allreduce_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    unrooted(counting::total, [&](int p, std::size_t n) {
      for (bool in_place : {false, true}) check(hpcoll::verify::allreduce<Schedule>(p, n, true, in_place));
    });
  });
}

TEST_CASE("verify.allgather") {
  hana::for_each(allgather_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    unrooted(counting::per_block, [&](int p, std::size_t n) {
      for (bool in_place : {false, true}) check(hpcoll::verify::allgather<Schedule>(p, n, in_place));
    });
  });
}

TEST_CASE("verify.allgatherv") {
  hana::for_each(allgatherv_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    for (int p = 1; p <= max_p; ++p) {
      const auto P = static_cast<std::size_t>(p);
      // Counts per rank: all 1; irregular (some empty); one non-empty block;
      // all empty; growing with the rank (0 to 10 elements, then again).
      std::vector<std::vector<std::size_t>> patterns(5, std::vector<std::size_t>(P));
      for (std::size_t q = 0; q < P; ++q) {
        patterns[0][q] = 1;
        patterns[1][q] = (q * 7 + 3) % 4;
        patterns[2][q] = q == P / 2 ? 5 : 0;
        patterns[3][q] = 0;
        patterns[4][q] = q % 11;
      }
      // Every pattern and layout (packed or reversed with gaps, in place or
      // not) up to size 32; above, the irregular pattern in one layout per
      // size, rotating.
      for (std::size_t k = 0; k < patterns.size(); ++k)
        for (int v = 0; v < 4; ++v)
          if (p <= 32 || (k == 1 && v == p % 4))
            check(hpcoll::verify::allgatherv<Schedule>(p, patterns[k], v / 2 == 1, v % 2 == 1));
    }
  });
}

TEST_CASE("verify.reduce_scatter_block") {
  hana::for_each(ordered_rsb_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    unrooted(counting::per_block, [&](int p, std::size_t n) {
      for (bool commutative : {false, true})
        for (bool in_place : {false, true})
          check(hpcoll::verify::reduce_scatter_block<Schedule>(p, n, commutative, in_place));
    });
  });
  hana::for_each(commutative_rsb_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    unrooted(counting::per_block, [&](int p, std::size_t n) {
      for (bool in_place : {false, true}) check(hpcoll::verify::reduce_scatter_block<Schedule>(p, n, true, in_place));
    });
  });
}

TEST_CASE("verify.alltoall") {
  hana::for_each(alltoall_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    unrooted(counting::per_block, [&](int p, std::size_t n) {
      for (bool in_place : {false, true}) check(hpcoll::verify::alltoall<Schedule>(p, n, in_place));
    });
  });
}

TEST_CASE("verify.alltoallv") {
  hana::for_each(alltoallv_schedules, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    for (int p = 1; p <= max_p; ++p) {
      const auto P = static_cast<std::size_t>(p);
      std::vector<std::size_t> counts(P * P);
      for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = (i * 2654435761u >> 7) % 3;  // 0..2, irregular
      for (bool gaps : {false, true}) check(hpcoll::verify::alltoallv<Schedule>(p, counts, gaps, false));
      // In place, MPI requires what i sends to j to equal what j sends to i.
      std::vector<std::size_t> symmetric(P * P);
      for (std::size_t i = 0; i < P; ++i)
        for (std::size_t j = 0; j < P; ++j) symmetric[i * P + j] = (i + j) % 3;
      for (bool gaps : {false, true}) check(hpcoll::verify::alltoallv<Schedule>(p, symmetric, gaps, true));
    }
  });
}

// Multicast: every member set of every master for p <= 12 (every size class
// up to p = 8, uneven blocks above), then random sets up to p = 128.
TEST_CASE("verify.mcast") {
  hana::for_each(S::candidates<hpcoll::mcast_shape>, [](auto s) {
    using Schedule = typename decltype(s)::type;
    sweep check;
    for (int p = 2; p <= 12; ++p)
      for (int master = 0; master < p; ++master)
        for (unsigned mask = 1; mask < (1u << (p - 1)); ++mask) {
          hpcoll::rank_set members(p);
          for (int bit = 0; bit < p - 1; ++bit)
            if ((mask >> bit) & 1u) members.insert(bit < master ? bit : bit + 1);
          const auto r = static_cast<std::size_t>(members.count());
          const std::vector<std::size_t> counts =
              p <= 8 ? std::vector<std::size_t>{0, 1, r - 1, r + 1, 2 * r + 3} : std::vector<std::size_t>{r + 1};
          for (std::size_t n : counts) check(hpcoll::verify::mcast<Schedule>(members, master, n));
        }
    std::mt19937 gen(6);
    for (int trial = 0; trial < 600; ++trial) {
      const int p = std::uniform_int_distribution<int>(13, max_p)(gen);
      const int master = std::uniform_int_distribution<int>(0, p - 1)(gen);
      const double density = std::uniform_real_distribution<double>(0.02, 1.0)(gen);
      hpcoll::rank_set members(p);
      for (int r = 0; r < p; ++r)
        if (r != master && std::bernoulli_distribution(density)(gen)) members.insert(r);
      if (members.empty()) members.insert((master + 1) % p);
      const auto r = static_cast<std::size_t>(members.count());
      for (std::size_t n : {std::size_t{1}, r + 1}) check(hpcoll::verify::mcast<Schedule>(members, master, n));
    }
  });
}

TEST_CASE("verify.self_check") {
  // The verifier itself must catch what it claims to: a commutative-only
  // schedule run as if the op were not commutative is reported out of order.
  const auto ring = hpcoll::verify::allreduce<S::ring>(5, 7, false);
  CHECK_FALSE(ring.ok);
  CHECK(ring.failure.find("out of order") != std::string::npos);
  const auto halving = hpcoll::verify::reduce_scatter_block<S::recursive_halving>(6, 2, false);
  CHECK_FALSE(halving.ok);
  // A broadcast that forgets its last logical rank, run as a multicast, leaves
  // the highest member without the data.
  const auto forgot = hpcoll::verify::mcast<forgets_last>(hpcoll::rank_set(7, {1, 4, 6}), 2, 3);
  CHECK_FALSE(forgot.ok);
  CHECK(forgot.failure.find("rank 6 output[0] should be element 0 of rank 2") != std::string::npos);
  // A rank that sends an element a receive of the same round is still writing
  // (the one in the middle of nine).
  const auto stuck = hpcoll::verify::bcast<waits_for_each_other>(3, 0, 4);
  CHECK_FALSE(stuck.ok);
  CHECK(stuck.failure.find("deadlock: rank 0 waits in round 0 for a receive from 1") != std::string::npos);
  const auto swapped = hpcoll::verify::bcast<swapped_sizes>(3, 0, 4);
  CHECK_FALSE(swapped.ok);
  CHECK(swapped.failure.find("rank 0 round 0 sends 1 elements to rank 1, whose round 0 receives 2") !=
        std::string::npos);
  const auto early = hpcoll::verify::bcast<forwards_too_early>(3, 0, 9);
  CHECK_FALSE(early.ok);
  CHECK(early.failure.find("rank 1 round 0: sends elements that a receive of the same round writes") !=
        std::string::npos);
}
