// The cost model derived from the schedules' rounds against the closed forms
// of Thakur, Rabenseifner & Gropp (2005), at powers of two and in between, and
// at compile time.
#include <doctest/doctest.h>

#include <hpcoll/hpcoll.hpp>
#include <hpcoll/select/cost.hpp>
#include <hpcoll/select/dispatch.hpp>

#include <bit>
#include <cstddef>
#include <string>
#include <type_traits>

namespace S = hpcoll::schedule;
using hpcoll::machine;
using hpcoll::predict;
using hpcoll::predict_sampled;

namespace {

/// Distinct parameters, so that a term counted wrongly shows. Hockney: gap = α,
/// no local copy cost.
constexpr machine hockney{.alpha = 3e-6, .beta = 7e-10, .gamma = 1.3e-9, .gap = 3e-6, .overhead = 0, .copy = 0};
constexpr double a = hockney.alpha, b = hockney.beta, g = hockney.gamma;

int ceil_lg(int p) { return p <= 1 ? 0 : std::bit_width(static_cast<unsigned>(p - 1)); }
int floor_lg(int p) { return std::bit_width(static_cast<unsigned>(p)) - 1; }
bool pow2(int p) { return std::has_single_bit(static_cast<unsigned>(p)); }

#define CHECK_COST(derived, closed)                                                     \
  do {                                                                                  \
    INFO("p = ", p, ", n = ", n);                                                       \
    CHECK((derived).seconds == doctest::Approx(closed).epsilon(1e-12).scale(1e-6));     \
  } while (0)

}  // namespace

TEST_CASE("cost.closed_forms") {
  for (int p = 1; p <= 64; ++p) {
    const auto P = static_cast<double>(p);
    // n a multiple of p, so every block is the same size (the closed forms
    // assume it); n = 0 sends nothing and costs nothing.
    for (std::size_t per_rank : {std::size_t{1}, std::size_t{1} << 10, std::size_t{90000}}) {
      const std::size_t n = per_rank * static_cast<std::size_t>(p);
      const auto N = static_cast<double>(n);
      const double part = p == 1 ? 0 : (P - 1) / P * N;  // (p − 1)/p · n
      // Binomial broadcast and reduce: ceil(lg p)(α + nβ [+ nγ]).
      CHECK_COST(predict<S::binomial>(hpcoll::bcast_shape{0, p, p / 2, n, 1}, hockney), ceil_lg(p) * (a + N * b));
      CHECK_COST(predict<S::binomial>(hpcoll::reduce_shape{0, p, 0, n, true, false, 1}, hockney),
                 ceil_lg(p) * (a + N * b + N * g));
      // Recursive doubling allreduce: lg p (α + nβ + nγ); otherwise the fold
      // adds a step in and a step out: (⌊lg p⌋ + 2) α + (⌊lg p⌋ + 2) nβ + (⌊lg p⌋ + 1) nγ.
      const int k = floor_lg(p);
      const double rd = pow2(p) ? k * (a + N * b + N * g) : (k + 2) * (a + N * b) + (k + 1) * N * g;
      CHECK_COST(predict<S::recursive_doubling>(hpcoll::allreduce_shape{0, p, n, true, false, 1}, hockney), rd);
      // Ring allreduce: 2(p − 1)α + 2(p − 1)/p nβ + (p − 1)/p nγ.
      CHECK_COST(predict<S::ring>(hpcoll::allreduce_shape{0, p, n, true, false, 1}, hockney),
                 2 * (P - 1) * a + 2 * part * b + part * g);
      // Ring allgather, n the whole output: (p − 1)α + (p − 1)/p nβ.
      const std::size_t block = n / static_cast<std::size_t>(p);
      CHECK_COST(predict<S::ring>(hpcoll::allgather_shape{0, p, block, false, 1}, hockney), (P - 1) * (a + N / P * b));
      // Bruck allgather: ceil(lg p)α + (p − 1)/p nβ.
      CHECK_COST(predict<S::bruck>(hpcoll::allgather_shape{0, p, block, false, 1}, hockney), ceil_lg(p) * a + part * b);
      // Pairwise exchange all-to-all, n a rank's whole send buffer: (p − 1)α + (p − 1)/p nβ;
      // Thakur's (p − 1)α + nβ counts the block a rank keeps.
      CHECK_COST(predict<S::pairwise>(hpcoll::alltoall_shape{0, p, block, false, 1}, hockney), (P - 1) * a + part * b);
      if (pow2(p)) {
        // Rabenseifner: 2 lg p α + 2(p − 1)/p nβ + (p − 1)/p nγ.
        CHECK_COST(predict<S::rabenseifner>(hpcoll::allreduce_shape{0, p, n, true, false, 1}, hockney),
                   2 * k * a + 2 * part * b + part * g);
        // Recursive halving reduce-scatter: lg p α + (p − 1)/p n(β + γ).
        CHECK_COST(predict<S::recursive_halving>(hpcoll::reduce_scatter_block_shape{0, p, block, true, false, 1}, hockney),
                   k * a + part * (b + g));
        // Recursive doubling allgather: lg p α + (p − 1)/p nβ.
        CHECK_COST(predict<S::recursive_doubling>(hpcoll::allgather_shape{0, p, block, false, 1}, hockney),
                   k * a + part * b);
        // Scatter + ring allgather broadcast (van de Geijn):
        // (lg p + p − 1)α + 2(p − 1)/p nβ.
        CHECK_COST(predict<S::scatter_ring_allgather>(hpcoll::bcast_shape{0, p, 0, n, 1}, hockney),
                   (k + P - 1) * a + 2 * part * b);
        // Bruck all-to-all: lg p α + (n/2) lg p β (packing is free on this machine).
        CHECK_COST(predict<S::bruck>(hpcoll::alltoall_shape{0, p, block, false, 1}, hockney), k * (a + N / 2 * b));
      }
    }
  }
}

TEST_CASE("cost.empty_call") {
  CHECK(predict<S::ring>(hpcoll::allreduce_shape{0, 7, 0, true, false, 8}, hockney).seconds == 0);
  CHECK(predict<S::binomial>(hpcoll::bcast_shape{0, 7, 3, 0, 8}, hockney).seconds == 0);
}

TEST_CASE("cost.gap_and_copies") {
  // One round of p − 1 sends: α + (p − 2)g for the messages, where pairwise
  // exchange pays α per round.
  machine m = hockney;
  m.gap = 0.5e-6;
  m.copy = 2e-10;
  const int p = 8;
  const std::size_t block = 4096;
  const double bytes = 7.0 * block;
  CHECK(predict<S::linear>(hpcoll::alltoall_shape{0, p, block, false, 1}, m).seconds ==
        doctest::Approx(a + 6 * m.gap + bytes * b + block * m.copy));
  CHECK(predict<S::pairwise>(hpcoll::alltoall_shape{0, p, block, false, 1}, m).seconds ==
        doctest::Approx(7 * a + bytes * b + block * m.copy));
  // Bruck's packing shows up as copied bytes on the critical path.
  CHECK(predict<S::bruck>(hpcoll::alltoall_shape{0, p, block, false, 1}, m).critical.copied > 0);
}

TEST_CASE("cost.compile_time") {
  // For a fixed p and size, schedules compare in static_assert ...
  constexpr hpcoll::allreduce_shape small{0, 64, 16, true, false, 8}, large{0, 64, std::size_t{1} << 22, true, false, 8};
  static_assert(predict<S::recursive_doubling>(small, machine{}).seconds < predict<S::ring>(small, machine{}).seconds);
  static_assert(predict<S::rabenseifner>(large, machine{}).seconds <
                predict<S::recursive_doubling>(large, machine{}).seconds);
  // ... and a collective object can be instantiated with the cheapest.
  using short_bcast = hpcoll::cheapest<hpcoll::bcast_shape{0, 64, 0, 64, 1}, machine{}, S::linear, S::binomial,
                                       S::scatter_ring_allgather>;
  using long_bcast = hpcoll::cheapest<hpcoll::bcast_shape{0, 64, 0, std::size_t{1} << 24, 1}, machine{}, S::linear,
                                      S::binomial, S::scatter_ring_allgather>;
  static_assert(std::is_same_v<hpcoll::Bcast<short_bcast>::schedule_type, S::binomial>);
  static_assert(std::is_same_v<hpcoll::Bcast<long_bcast>::schedule_type, S::scatter_ring_allgather>);
  CHECK(hpcoll::schedule_name<long_bcast>() == "scatter_allgather<binomial, ring>");
}

TEST_CASE("cost.sampled_ranks") {
  // Above 256 ranks the dispatcher walks a sample of ranks for the schedules
  // that declare sampled_cost; for every candidate of every collective it
  // must find the cost of the full walk.
  const machine m{};
  int compared = 0;
  const auto same = [&](const auto& shape, auto type) {
    using Sch = typename decltype(type)::type;
    const double full = predict<Sch>(shape, m).seconds, sampled = predict_sampled<Sch>(shape, m).seconds;
    INFO(std::remove_cvref_t<decltype(shape)>::name, " ", hpcoll::schedule_name<Sch>(), " p = ", shape.size, " bytes ", hpcoll::message_bytes(shape));
    // Blocks of uneven layouts differ by one element: which rank holds the
    // larger one in a round can escape the sample.
    CHECK(sampled == doctest::Approx(full).epsilon(1e-3));
    ++compared;
  };
  for (const int p : {257, 384, 513, 1000}) {
    for (const std::size_t n : {static_cast<std::size_t>(3 * p + 1), std::size_t{1} << 16}) {
      const auto each = [&]<class Shape>(const Shape& shape) {
        S::for_each_candidate<Shape>([&](auto type, std::size_t) { same(shape, type); });
      };
      each(hpcoll::bcast_shape{0, p, p / 3, n, 4});
      each(hpcoll::reduce_shape{0, p, p - 1, n, true, false, 4});
      each(hpcoll::allreduce_shape{0, p, n, true, false, 4});
      each(hpcoll::gather_shape{0, p, 5, n / 64 + 1, false, 4});
      each(hpcoll::scatter_shape{0, p, 0, n / 64 + 1, false, 4});
      each(hpcoll::allgather_shape{0, p, n / 64 + 1, false, 4});
      each(hpcoll::reduce_scatter_block_shape{0, p, n / 64 + 1, true, false, 4});
      each(hpcoll::alltoall_shape{0, p, n / 256 + 1, false, 4});
    }
  }
  CHECK(compared > 200);
}

TEST_CASE("cost.segmented_trees") {
  // k segments of s bytes each (elements of one byte).
  constexpr std::size_t s = 1024;
  for (const int k : {1, 2, 7, 32}) {
    const std::size_t n = s * static_cast<std::size_t>(k);
    const double seg = a + s * b, K = k;
    for (int p = 2; p <= 40; ++p) {
      // Pipelined chain: segment j reaches rank v in round j + v − 1, so
      // (p − 2 + k) rounds of one segment in and one out; the reduce adds the
      // segment's reduction to every round.
      CHECK_COST(predict<S::pipeline<s>>(hpcoll::bcast_shape{0, p, p / 2, n, 1}, hockney), (p - 2 + K) * seg);
      CHECK_COST(predict<S::pipeline<s>>(hpcoll::reduce_shape{0, p, p / 3, n, true, false, 1}, hockney),
                 (p - 2 + K) * (seg + s * g));
    }
    for (const int levels : {1, 2, 3, 4, 5, 6}) {
      // Complete binary tree of p = 2^(h+1) − 1 ranks: h + k − 1 rounds of two
      // segments sent by an inner node (α + g + 2sβ, g = α).
      int p = (1 << (levels + 1)) - 1;
      const double h = levels;
      CHECK_COST(predict<S::segmented_binary<s>>(hpcoll::bcast_shape{0, p, 1, n, 1}, hockney),
                 (h + K - 1) * (2 * a + 2 * (s * b)));
      // Binomial tree of p = 2^m ranks: the root sends each of the k segments to
      // its m children at once; once it is done, the busiest nodes are those at
      // the next depth, with one child fewer: k·m + m(m − 1)/2 segment sends.
      p = 1 << levels;
      const double m = levels;
      CHECK_COST(predict<S::segmented_binomial<s>>(hpcoll::bcast_shape{0, p, p - 1, n, 1}, hockney),
                 (K * m + m * (m - 1) / 2) * seg);
    }
  }
}

TEST_CASE("cost.knomial") {
  // K-nomial at p = K^L: L rounds; in each the root sends (bcast) or receives
  // and reduces (reduce) K − 1 messages of n: α + (K − 2)g + (K − 1)n(β [+ γ]).
  machine m = hockney;
  m.gap = 0.5e-6;
  const std::size_t n = 4096;
  const auto N = static_cast<double>(n);
  for (const int levels : {1, 2, 3, 4}) {
    const double L = levels;
    int p = 1;
    for (int i = 0; i < levels; ++i) p *= 4;
    CHECK_COST(predict<S::knomial<4>>(hpcoll::bcast_shape{0, p, 3, n, 1}, m), L * (a + 2 * m.gap + 3 * N * b));
    CHECK_COST(predict<S::knomial<4>>(hpcoll::reduce_shape{0, p, 0, n, true, false, 1}, m),
               L * (a + 2 * m.gap + 3 * N * (b + g)));
    // Fewer rounds than binomial's 2L: cheaper when the gap is small and messages short.
    CHECK(predict<S::knomial<4>>(hpcoll::bcast_shape{0, p, 0, 8, 1}, m).seconds <
          predict<S::binomial>(hpcoll::bcast_shape{0, p, 0, 8, 1}, m).seconds);
  }
}

TEST_CASE("cost.rabenseifner_reduce") {
  // Recursive halving then binomial gather, p a power of two:
  // 2 lg p α + 2(p − 1)/p nβ + (p − 1)/p nγ, against binomial's lg p (α + nβ + nγ).
  for (int p = 2; p <= 128; p *= 2) {
    const auto P = static_cast<double>(p);
    const int k = floor_lg(p);
    for (const std::size_t n : {static_cast<std::size_t>(p), std::size_t{1} << 20}) {
      const auto N = static_cast<double>(n);
      const double part = (P - 1) / P * N;
      for (int root : {0, p - 1, p / 2})
        CHECK_COST(predict<S::rabenseifner_reduce>(hpcoll::reduce_shape{0, p, root, n, true, false, 1}, hockney),
                   2 * k * a + 2 * part * b + part * g);
    }
    const hpcoll::reduce_shape large{0, p, 0, std::size_t{1} << 20, true, false, 1};
    if (p >= 4)
      CHECK(predict<S::rabenseifner_reduce>(large, hockney).seconds < predict<S::binomial>(large, hockney).seconds);
  }
}
