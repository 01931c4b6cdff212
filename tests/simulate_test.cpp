// SPDX-License-Identifier: BSD-3-Clause
// The network simulator (hpcoll/simulate.hpp) against the literature's closed
// forms (Thakur, Rabenseifner & Gropp 2005, "Optimization of collective
// communication operations in MPICH") on Hockney parameters, against the
// aligned-round cost model (hpcoll::predict), on LogGP details, on plans that
// deadlock, and at p = 65536.
#include <doctest/doctest.h>

#include "support/error_checks.hpp"

#include <hpcoll/analysis/simulate.hpp>
#include <hpcoll/error.hpp>
#include <hpcoll/schedule/all.hpp>
#include <hpcoll/select/cost.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace S = hpcoll::schedule;
using hpcoll::machine;
using hpcoll::predict;
using hpcoll::simulate;
using hpcoll_test::error_of;

namespace {

/// Hockney's model: no overheads, one α per message, no local copy cost.
// The simulator prices α, β, γ, g, o and copies; the cost model's protocol
// step and in-cache rates are off here, so the two can be compared.
constexpr machine ideal{.alpha = 2e-6, .beta = 1e-10, .gamma = 2e-10, .gap = 2e-6, .overhead = 0, .copy = 0,
                        .eager_bytes = std::numeric_limits<std::size_t>::max(), .cache_bytes = 0};

int ceil_lg(int p) { return p <= 1 ? 0 : std::bit_width(static_cast<unsigned>(p - 1)); }
int floor_pow2(int p) { return static_cast<int>(std::bit_floor(static_cast<unsigned>(p))); }
bool pow2(int p) { return std::has_single_bit(static_cast<unsigned>(p)); }

/// Powers of two and not, small enough for O(p²) schedules to be quick.
const std::vector<int> sizes = {2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 24, 31, 32, 33, 48, 64, 100, 128};

/// Equal to relative precision (the simulator adds the same terms in another order).
bool same(double a, double b) { return a == doctest::Approx(b).epsilon(1e-9); }

// ---- closed forms (n bytes in all; b = n / p bytes per block) --------------

/// The fold of recursive doubling/halving on p ranks: pof2 = 2^k ranks take
/// part, rem = p − pof2 extras hand in their data first and get it back last.
struct fold {
  int p, pof2, rem, k;
  explicit fold(int p_) : p(p_), pof2(floor_pow2(p_)), rem(p_ - floor_pow2(p_)), k(ceil_lg(floor_pow2(p_))) {}
  /// Blocks of the widest group of w virtual ranks (virtual rank v < rem stands for 2 real ranks).
  double widest(int w) const { return w + std::min(w, rem); }
};

/// Recursive-doubling allgather of blocks of b bytes: lg p (α) + (p−1) b β for
/// powers of two; otherwise the fold: extras hand in their block, the groups
/// double in virtual ranks (the widest group counts every doubled rank), and
/// the extras receive everything else in two messages (one for extra 0).
double rd_allgather(int p, double b, const machine& m) {
  const double a = m.alpha, be = m.beta;
  if (pow2(p)) return ceil_lg(p) * a + (p - 1) * b * be;
  const fold f(p);
  double t = a + b * be;
  for (int i = 0; i < f.k; ++i) t += a + f.widest(1 << i) * b * be;
  return t + (f.rem >= 2 ? a + m.gap : a) + (p - 1) * b * be;
}

/// Recursive-doubling allreduce of n bytes: lg p (α + nβ + nγ) for powers of
/// two; otherwise (⌊lg p⌋ + 2)(α + nβ) + (⌊lg p⌋ + 1) nγ (Thakur et al.).
double rd_allreduce(int p, double n, const machine& m) {
  const fold f(p);
  const double a = m.alpha, be = m.beta, g = m.gamma;
  if (pow2(p)) return f.k * (a + n * be + n * g);
  return (f.k + 2) * (a + n * be) + (f.k + 1) * n * g;
}

/// Rabenseifner (recursive-halving reduce-scatter + recursive-doubling
/// allgather) of n bytes: 2 lg p α + 2 (p−1)/p nβ + (p−1)/p nγ for powers of
/// two; otherwise hpcoll's composition of the two folded phases: fold in the
/// whole vector, halve over virtual ranks, hand the extras their block, then
/// the folded allgather.
double rabenseifner(int p, double n, const machine& m) {
  const double a = m.alpha, be = m.beta, g = m.gamma, b = n / p;
  if (pow2(p)) return 2 * ceil_lg(p) * a + 2.0 * (p - 1) / p * n * be + (p - 1.0) / p * n * g;
  const fold f(p);
  double t = a + n * (be + g);
  for (int i = 0; i < f.k; ++i) t += a + f.widest(f.pof2 >> (i + 1)) * b * (be + g);
  t += a + b * be;
  return t + rd_allgather(p, b, m);
}

/// Binomial bcast: ⌈lg p⌉ (α + nβ).
double binomial_bcast(int p, double n, const machine& m) { return ceil_lg(p) * (m.alpha + n * m.beta); }

/// Binomial scatter of p blocks: ⌈lg p⌉ α + (p−1) b β (the root sends p − 1 blocks in all).
double binomial_scatter(int p, double b, const machine& m) { return ceil_lg(p) * m.alpha + (p - 1) * b * m.beta; }

/// Ring allgather: (p−1)(α + bβ).
double ring_allgather(int p, double b, const machine& m) { return (p - 1) * (m.alpha + b * m.beta); }

/// Bruck allgather: ⌈lg p⌉ α + (p−1) b β (the last round sends the p − 2^k remaining blocks).
double bruck_allgather(int p, double b, const machine& m) { return ceil_lg(p) * m.alpha + (p - 1) * b * m.beta; }

/// Bruck alltoall: ⌈lg p⌉ α + Σ_k (blocks with bit k set) b β; lg p α + (p/2) lg p bβ for powers of two.
double bruck_alltoall(int p, double b, const machine& m) {
  double blocks = 0;
  for (int k = 0; k < ceil_lg(p); ++k) {
    const int d = 1 << k;
    blocks += (p / (2 * d)) * d + std::max(0, p % (2 * d) - d);
  }
  return ceil_lg(p) * m.alpha + blocks * b * m.beta;
}

/// Pairwise exchange alltoall (and linear alltoall, which posts everything at
/// once but sends in the same order): (p−1)(α + bβ) = (p−1)α + (p−1)/p nβ.
double pairwise_alltoall(int p, double b, const machine& m) { return (p - 1) * (m.alpha + b * m.beta); }

/// Linear bcast: the root sends p − 1 whole messages, (p−1)(α + nβ).
double linear_bcast(int p, double n, const machine& m) { return (p - 1) * (m.alpha + n * m.beta); }

/// Ring allreduce: 2(p−1)α + 2(p−1)/p nβ + (p−1)/p nγ.
double ring_allreduce(int p, double n, const machine& m) {
  return 2 * (p - 1) * m.alpha + 2.0 * (p - 1) / p * n * m.beta + (p - 1.0) / p * n * m.gamma;
}

hpcoll::bcast_shape bcast(int p, std::size_t n, int root = 0) { return {0, p, root, n, 1}; }
hpcoll::allreduce_shape allreduce(int p, std::size_t n) { return {0, p, n, true, false, 1}; }
hpcoll::allgather_shape allgather(int p, std::size_t b) { return {0, p, b, false, 1}; }
hpcoll::alltoall_shape alltoall(int p, std::size_t b) { return {0, p, b, false, 1}; }


// ---- custom plans for the failure cases ----------------------------------

/// A tiny hand-written plan: round r of rank q is whatever `steps` says.
template <class Steps>
struct custom_plan {
  hpcoll::bcast_shape s;
  int n_rounds;
  constexpr int rounds() const { return n_rounds; }
  constexpr std::size_t scratch_elems() const { return 0; }
  template <class Emit>
  constexpr void round(int r, Emit&& emit) const {
    Steps{}(s, r, emit);
  }
};

/// Every rank waits for its right neighbour; nobody sends.
struct waits_for_right {
  static constexpr const char* name = "waits_for_right";
  struct steps {
    template <class Emit>
    void operator()(const hpcoll::bcast_shape& s, int, Emit& emit) const {
      emit(hpcoll::step::recv((s.rank + 1) % s.size, hpcoll::out(0, s.count)));
    }
  };
  static custom_plan<steps> plan(const hpcoll::bcast_shape& s) { return {s, 1}; }
};

/// Ranks 0 and 1 each receive from the other in round 0 and send in round 1.
struct cross_wait {
  static constexpr const char* name = "cross_wait";
  struct steps {
    template <class Emit>
    void operator()(const hpcoll::bcast_shape& s, int r, Emit& emit) const {
      if (s.rank > 1) return;
      const int other = 1 - s.rank;
      if (r == 0) emit(hpcoll::step::recv(other, hpcoll::out(0, s.count)));
      if (r == 1) emit(hpcoll::step::send(other, hpcoll::out(0, s.count)));
    }
  };
  static custom_plan<steps> plan(const hpcoll::bcast_shape& s) { return {s, 2}; }
};

/// Rank 0 receives in round 0 what rank 1 sends in round 1: legal under MPI's
/// matching (rank 1's round 0 is empty), and it must not deadlock.
struct late_send {
  static constexpr const char* name = "late_send";
  struct steps {
    template <class Emit>
    void operator()(const hpcoll::bcast_shape& s, int r, Emit& emit) const {
      if (s.rank == 0 && r == 0) emit(hpcoll::step::recv(1, hpcoll::out(0, s.count)));
      if (s.rank == 1 && r == 1) emit(hpcoll::step::send(0, hpcoll::out(0, s.count)));
    }
  };
  static custom_plan<steps> plan(const hpcoll::bcast_shape& s) { return {s, 2}; }
};

/// Rank 0 sends to rank 1, which never receives.
struct unreceived {
  static constexpr const char* name = "unreceived";
  struct steps {
    template <class Emit>
    void operator()(const hpcoll::bcast_shape& s, int, Emit& emit) const {
      if (s.rank == 0) emit(hpcoll::step::send(1, hpcoll::out(0, s.count)));
    }
  };
  static custom_plan<steps> plan(const hpcoll::bcast_shape& s) { return {s, 1}; }
};

/// Rank 1 expects one element fewer than rank 0 sends.
struct size_mismatch {
  static constexpr const char* name = "size_mismatch";
  struct steps {
    template <class Emit>
    void operator()(const hpcoll::bcast_shape& s, int, Emit& emit) const {
      if (s.rank == 0) emit(hpcoll::step::send(1, hpcoll::out(0, s.count)));
      if (s.rank == 1) emit(hpcoll::step::recv(0, hpcoll::out(0, s.count - 1)));
    }
  };
  static custom_plan<steps> plan(const hpcoll::bcast_shape& s) { return {s, 1}; }
};

/// Rank 0 sends to itself.
struct self_message {
  static constexpr const char* name = "self_message";
  struct steps {
    template <class Emit>
    void operator()(const hpcoll::bcast_shape& s, int, Emit& emit) const {
      if (s.rank == 0) emit(hpcoll::step::send(0, hpcoll::out(0, s.count)));
    }
  };
  static custom_plan<steps> plan(const hpcoll::bcast_shape& s) { return {s, 1}; }
};

/// Rank 2 has one round more than the others.
struct uneven_rounds {
  static constexpr const char* name = "uneven_rounds";
  struct steps {
    template <class Emit>
    void operator()(const hpcoll::bcast_shape&, int, Emit&) const {}
  };
  static custom_plan<steps> plan(const hpcoll::bcast_shape& s) { return {s, s.rank == 2 ? 2 : 1}; }
};

}  // namespace

TEST_CASE("simulate.closed_forms") {
  for (int p : sizes) {
    CAPTURE(p);
    const std::size_t b = 1000;  // bytes per block
    const std::size_t n = b * static_cast<std::size_t>(p);
    const double bb = static_cast<double>(b), nn = static_cast<double>(n);

    // bcast: binomial tree, van de Geijn (binomial scatter + ring allgather), linear.
    CHECK(same(simulate<S::binomial>(bcast(p, n), ideal).seconds, binomial_bcast(p, nn, ideal)));
    CHECK(same(simulate<S::binomial>(bcast(p, n, p / 2), ideal).seconds, binomial_bcast(p, nn, ideal)));
    CHECK(same(simulate<S::scatter_ring_allgather>(bcast(p, n), ideal).seconds,
               binomial_scatter(p, bb, ideal) + ring_allgather(p, bb, ideal)));
    if (pow2(p))  // lg p α + (p−1)/p nβ twice
      CHECK(same(simulate<S::scatter_recursive_doubling_allgather>(bcast(p, n), ideal).seconds,
                 2 * ceil_lg(p) * ideal.alpha + 2.0 * (p - 1) / p * nn * ideal.beta));
    CHECK(same(simulate<S::linear>(bcast(p, n), ideal).seconds, linear_bcast(p, nn, ideal)));

    // allreduce: recursive doubling and Rabenseifner on powers of two (folds:
    // simulate.folds), ring for every p.
    if (pow2(p)) {
      CHECK(same(simulate<S::recursive_doubling>(allreduce(p, n), ideal).seconds, rd_allreduce(p, nn, ideal)));
      CHECK(same(simulate<S::rabenseifner>(allreduce(p, n), ideal).seconds, rabenseifner(p, nn, ideal)));
    }
    CHECK(same(simulate<S::ring>(allreduce(p, n), ideal).seconds, ring_allreduce(p, nn, ideal)));

    // allgather: ring, Bruck, recursive doubling (with its fold).
    CHECK(same(simulate<S::ring>(allgather(p, b), ideal).seconds, ring_allgather(p, bb, ideal)));
    CHECK(same(simulate<S::bruck>(allgather(p, b), ideal).seconds, bruck_allgather(p, bb, ideal)));
    CHECK(same(simulate<S::recursive_doubling>(allgather(p, b), ideal).seconds, rd_allgather(p, bb, ideal)));

    // alltoall: pairwise exchange, linear, Bruck.
    CHECK(same(simulate<S::pairwise>(alltoall(p, b), ideal).seconds, pairwise_alltoall(p, bb, ideal)));
    CHECK(same(simulate<S::linear>(alltoall(p, b), ideal).seconds, pairwise_alltoall(p, bb, ideal)));
    CHECK(same(simulate<S::bruck>(alltoall(p, b), ideal).seconds, bruck_alltoall(p, bb, ideal)));
  }
}

TEST_CASE("simulate.folds") {
  // Off powers of two the rem = p − 2^k extras of recursive doubling/halving
  // fold in and out. The closed forms above are the aligned-round values
  // (every round waits for the slowest rank), and the cost model agrees with
  // them. The simulator reaches them exactly when more than half the virtual
  // ranks are late (2 rem > 2^k: then some rank's every partner chain starts
  // at a late rank); otherwise the ranks that skipped the fold run ahead and
  // the call ends earlier — but never before the 2^k part plus the fold-out.
  // Rabenseifner follows the same rule up to p = 33; on larger sizes the
  // messages of ranks that ran ahead can also hold a receiver's ejection
  // port when the message it waits for arrives, and the call can end later
  // than aligned (p = 100 below).
  for (int p : sizes) {
    if (pow2(p)) continue;
    CAPTURE(p);
    const fold f(p);
    const std::size_t n = 1000 * static_cast<std::size_t>(p);
    const double nn = static_cast<double>(n);

    const double rd = simulate<S::recursive_doubling>(allreduce(p, n), ideal).seconds;
    CHECK(same(predict<S::recursive_doubling>(allreduce(p, n), ideal).seconds, rd_allreduce(p, nn, ideal)));
    const double rab = simulate<S::rabenseifner>(allreduce(p, n), ideal).seconds;
    CHECK(same(predict<S::rabenseifner>(allreduce(p, n), ideal).seconds, rabenseifner(p, nn, ideal)));
    if (2 * f.rem > f.pof2) {
      CHECK(same(rd, rd_allreduce(p, nn, ideal)));
      if (p <= 33) CHECK(same(rab, rabenseifner(p, nn, ideal)));
    } else {
      CHECK(rd < rd_allreduce(p, nn, ideal) * (1 - 1e-9));
      if (p <= 33) CHECK(rab < rabenseifner(p, nn, ideal) * (1 - 1e-9));
    }
    CHECK(rd >= f.k * (ideal.alpha + nn * (ideal.beta + ideal.gamma)) + ideal.alpha + nn * ideal.beta);
    CHECK(rab == doctest::Approx(rabenseifner(p, nn, ideal)).epsilon(0.05));
  }
  const std::size_t n = 100000;
  CHECK(simulate<S::rabenseifner>(allreduce(100, n), ideal).seconds >
        rabenseifner(100, static_cast<double>(n), ideal) + 1e-6);
}

TEST_CASE("simulate.loggp") {
  const std::size_t n = 4096;
  SUBCASE("one isolated message costs alpha + n beta, whatever the overheads") {
    for (double o : {0.0, 0.25e-6, 1e-6}) {
      machine m = ideal;
      m.overhead = o;
      CHECK(same(simulate<S::linear>(bcast(2, n), m).seconds, m.alpha + n * m.beta));
    }
  }
  SUBCASE("overheads above alpha / 2 leave no wire latency") {
    machine m = ideal;
    m.overhead = 1.5e-6;  // 2o > alpha: L = 0
    CHECK(same(simulate<S::linear>(bcast(2, n), m).seconds, 2 * m.overhead + n * m.beta));
  }
  SUBCASE("consecutive sends of one rank are a gap apart; the sender's overheads overlap the injections") {
    for (int p : {2, 3, 8, 33}) {
      machine m = ideal;
      m.gap = 5e-6;
      m.overhead = 0.3e-6;
      // Sends start (n β + g) apart; the last one then costs o + L + n β + o = α + n β.
      CHECK(same(simulate<S::linear>(bcast(p, n), m).seconds, (p - 2) * (n * m.beta + m.gap) + m.alpha + n * m.beta));
    }
  }
  SUBCASE("receive overheads queue on the receiver's CPU") {
    machine m = ideal;
    m.overhead = 1e-6;
    m.beta = 0;  // all messages arrive together
    const int p = 6;
    // Linear gather: p − 1 messages reach the root at o + L = α − o and are
    // received one after another, o each.
    const hpcoll::gather_shape g{0, p, 0, 1, false, 1};
    CHECK(same(simulate<S::linear>(g, m).seconds, m.alpha - m.overhead + (p - 1) * m.overhead));
  }
  SUBCASE("local copies and reductions are priced") {
    machine m = ideal;
    m.copy = 1e-10;
    // Bruck allgather: the own block goes to scratch, the p blocks are rotated back.
    const int p = 8;
    const double b = 1000;
    CHECK(same(simulate<S::bruck>(allgather(p, 1000), m).seconds,
               bruck_allgather(p, b, m) + b * m.copy /* own block: in → out */ + b * m.copy /* → scratch */ +
                   (p - 1) * b * m.copy /* rotation */));
    const auto sim = simulate<S::bruck>(allgather(p, 1000), m);
    CHECK(sim.copied == static_cast<std::size_t>(p) * (p + 1) * 1000);
  }
}

TEST_CASE("simulate.predict") {
  SUBCASE("symmetric schedules on Hockney parameters: the simulator is the cost model") {
    for (int p : sizes) {
      CAPTURE(p);
      const std::size_t b = 1000, n = b * static_cast<std::size_t>(p);
      const auto agree = [&](double sim, double model) { CHECK(same(sim, model)); };
      agree(simulate<S::binomial>(bcast(p, n), ideal).seconds, predict<S::binomial>(bcast(p, n), ideal).seconds);
      agree(simulate<S::ring>(allgather(p, b), ideal).seconds, predict<S::ring>(allgather(p, b), ideal).seconds);
      agree(simulate<S::bruck>(allgather(p, b), ideal).seconds, predict<S::bruck>(allgather(p, b), ideal).seconds);
      agree(simulate<S::pairwise>(alltoall(p, b), ideal).seconds, predict<S::pairwise>(alltoall(p, b), ideal).seconds);
      agree(simulate<S::ring>(allreduce(p, n), ideal).seconds, predict<S::ring>(allreduce(p, n), ideal).seconds);
      if (pow2(p)) {
        agree(simulate<S::recursive_doubling>(allreduce(p, n), ideal).seconds,
              predict<S::recursive_doubling>(allreduce(p, n), ideal).seconds);
        agree(simulate<S::rabenseifner>(allreduce(p, n), ideal).seconds,
              predict<S::rabenseifner>(allreduce(p, n), ideal).seconds);
      }
    }
  }
  SUBCASE("ranks running ahead: a binomial reduce off powers of two") {
    // Rank 4 of 5 has nothing to do before it sends (round 2), so it sends at
    // once; the root finds the message there and only reduces it. Aligned:
    // 3 (α + nβ + nγ); simulated: 2 (α + nβ + nγ) + nγ.
    const double n = 1e5;
    const hpcoll::reduce_shape r{0, 5, 0, 100000, true, false, 1};
    const auto sim = simulate<S::binomial>(r, ideal);
    const double step = ideal.alpha + n * (ideal.beta + ideal.gamma);
    CHECK(same(predict<S::binomial>(r, ideal).seconds, 3 * step));
    CHECK(same(sim.seconds, 2 * step + n * ideal.gamma));
    CHECK(sim.unexpected == 1);
  }
  SUBCASE("ranks running ahead: the linear reduce overlaps the root's reductions with the arrivals") {
    const int p = 16;
    const double n = 1e5;
    const hpcoll::reduce_shape r{0, p, 0, 100000, true, false, 1};
    // Every sender sends at once; the root's port takes the messages back to
    // back, and each reduction hides behind the next arrival (γ n > β n
    // here, so the reductions are the bottleneck).
    const double sim = simulate<S::linear>(r, ideal).seconds;
    CHECK(same(sim, ideal.alpha + n * ideal.beta + (p - 1) * n * ideal.gamma));
    CHECK(same(predict<S::linear>(r, ideal).seconds, (p - 1) * (ideal.alpha + n * (ideal.beta + ideal.gamma))));
  }
  SUBCASE("contention the aligned model cannot see: the linear allgather's incast") {
    // Every rank sends its block to ranks 0, 1, 2, … in that order, so in
    // slot k every rank targets the same receiver; rank p − 1 receives all
    // its p − 1 blocks in the last slot, one after the other on its port.
    for (int p : {3, 8, 33}) {
      const double b = 1000;
      const double sim = simulate<S::linear>(allgather(p, 1000), ideal).seconds;
      CHECK(same(sim, (p - 1) * ideal.alpha + (2 * p - 3) * b * ideal.beta));
      // The model charges every rank its 2(p − 1) messages, an exchange's send and
      // receive overlapping, and no receiver port.
      CHECK(same(predict<S::linear>(allgather(p, 1000), ideal).seconds,
                 (2 * p - 3) * ideal.alpha + (p - 1) * b * ideal.beta));
    }
  }
  SUBCASE("with overheads the models part") {
    machine m = ideal;
    m.overhead = 0.5e-6;
    m.gap = 1e-6;
    const int p = 16;
    const double sim = simulate<S::linear>(bcast(p, 1000), m).seconds;
    const double model = predict<S::linear>(bcast(p, 1000), m).seconds;
    CHECK(same(sim, (p - 2) * (1000 * m.beta + m.gap) + m.alpha + 1000 * m.beta));
    CHECK(same(model, m.alpha + (p - 2) * m.gap + (p - 1) * 1000 * m.beta));
  }
}

TEST_CASE("simulate.counts") {
  const int p = 12;
  const auto ring = simulate<S::ring>(allgather(p, 100), ideal);
  CHECK(ring.rounds == 1 + (p - 1));  // the own-block copy round, then the ring
  CHECK(ring.messages == static_cast<std::size_t>(p * (p - 1)));
  CHECK(ring.bytes == static_cast<std::size_t>(p * (p - 1) * 100));
  CHECK(ring.unexpected == 0);
  CHECK(ring.earliest <= ring.seconds);
  const auto rd = simulate<S::recursive_doubling>(allreduce(8, 64), ideal);
  CHECK(rd.messages == 8 * 3);
  CHECK(rd.reduced == 8 * 3 * 64);
  // Empty messages are skipped: an allreduce of 3 elements on 8 ranks leaves
  // most blocks of Rabenseifner's phases empty.
  const auto rab = simulate<S::rabenseifner>(allreduce(8, 3), ideal);
  CHECK(rab.messages < 2 * 8 * 3);
  // A lone rank only copies.
  const auto one = simulate<S::recursive_doubling>(allreduce(1, 10), ideal);
  CHECK(one.messages == 0);
  CHECK(one.seconds == 0);
}

TEST_CASE("simulate.errors") {
  const auto deadlock = error_of([] { simulate<waits_for_right>(bcast(4, 10), ideal); });
  CHECK(deadlock.find("hpcoll::bcast<waits_for_right>") != std::string::npos);
  CHECK(deadlock.find("deadlock: rank 0 waits in round 0 for a message from rank 1") != std::string::npos);
  CHECK(deadlock.find("4 of 4 ranks never finish") != std::string::npos);

  const auto cross = error_of([] { simulate<cross_wait>(bcast(3, 10), ideal); });
  CHECK(cross.find("deadlock: rank 0 waits in round 0 for a message from rank 1") != std::string::npos);
  CHECK(cross.find("2 of 3 ranks never finish") != std::string::npos);

  const auto late = simulate<late_send>(bcast(2, 10), ideal);  // matches across rounds, like MPI
  CHECK(same(late.seconds, ideal.alpha + 10 * ideal.beta));

  CHECK(error_of([] { simulate<unreceived>(bcast(2, 10), ideal); }).find("rank 0 sends 10 elements to rank 1 in round 0 "
                                                                         "that no receive matches") != std::string::npos);
  CHECK(error_of([] { simulate<size_mismatch>(bcast(2, 10), ideal); })
            .find("rank 1 round 0 receives 9 elements from rank 0, which sends 10") != std::string::npos);
  CHECK(error_of([] { simulate<self_message>(bcast(2, 10), ideal); }).find("sends a message to itself") !=
        std::string::npos);
  CHECK(error_of([] { simulate<uneven_rounds>(bcast(4, 10), ideal); }).find("rank 2 has 2 rounds, rank 0 has 1") !=
        std::string::npos);
}

TEST_CASE("simulate.large") {
  // p = 65536 for the logarithmic schedules, against their closed forms.
  const int p = 65536;
  const std::size_t b = 4, n = b * static_cast<std::size_t>(p);
  const double bb = static_cast<double>(b), nn = static_cast<double>(n);
  CHECK(same(simulate<S::binomial>(bcast(p, 1024), ideal).seconds, binomial_bcast(p, 1024, ideal)));
  CHECK(same(simulate<S::recursive_doubling>(allreduce(p, 1024), ideal).seconds, rd_allreduce(p, 1024, ideal)));
  CHECK(same(simulate<S::rabenseifner>(allreduce(p, n), ideal).seconds, rabenseifner(p, nn, ideal)));
  CHECK(same(simulate<S::bruck>(allgather(p, b), ideal).seconds, bruck_allgather(p, bb, ideal)));
  CHECK(same(simulate<S::recursive_doubling>(allgather(p, b), ideal).seconds, rd_allgather(p, bb, ideal)));
  // Off a power of two, with the fold.
  const int q = p - 1;
  CHECK(same(simulate<S::binomial>(bcast(q, 1024, 77), ideal).seconds, binomial_bcast(q, 1024, ideal)));
  CHECK(same(simulate<S::bruck>(allgather(q, b), ideal).seconds, bruck_allgather(q, bb, ideal)));
  CHECK(same(simulate<S::recursive_doubling>(allreduce(q, 1024), ideal).seconds, rd_allreduce(q, 1024, ideal)));
}

TEST_CASE("simulate.nodes") {
  using hpcoll::node_layout;
  // On one node the simulation is the flat one.
  for (const int p : {2, 5, 8}) {
    const node_layout one = node_layout::regular(1, p);
    const hpcoll::allreduce_shape call{0, p, 1000, true, false, 8};
    CHECK(simulate<S::recursive_doubling>(call, ideal, one).seconds == simulate<S::recursive_doubling>(call, ideal).seconds);
    CHECK(simulate<S::ring>(call, ideal, one).seconds == simulate<S::ring>(call, ideal).seconds);
  }
  machine m = ideal;
  m.gamma = 0;
  m.inter_alpha = 5e-6;
  m.inter_beta = 2e-9;
  m.port_beta = 1e-9;
  const double n = 8000;  // bytes
  // One message between two one-rank nodes: the slower of its ranks' streams and the ports.
  CHECK(same(simulate<S::binomial>(bcast(2, 8000), m, node_layout::regular(2, 1)).seconds, m.inter_alpha + n * m.inter_beta));
  // Recursive doubling on 2 nodes × 2 ranks: round 0 inside the nodes; in
  // round 1 both ranks of a node send across, and the node's port takes
  // their messages in turn: the second starts n·port_beta after the first.
  const hpcoll::allreduce_shape call{0, 4, 1000, true, false, 8};
  const double inside = m.alpha + n * m.beta;
  CHECK(same(simulate<S::recursive_doubling>(call, m, node_layout::regular(2, 2)).seconds,
             inside + m.inter_alpha + n * m.port_beta + n * m.inter_beta));
  // Numbered round-robin, round 0 crosses and round 1 stays inside: the
  // second message of round 0 arrives n·port_beta late.
  CHECK(same(simulate<S::recursive_doubling>(call, m, node_layout::regular(2, 2, hpcoll::node_numbering::round_robin)).seconds,
             m.inter_alpha + n * m.port_beta + n * m.inter_beta + inside));
  CHECK(error_of([&] { simulate<S::ring>(call, m, node_layout::regular(2, 3)); }).find("the node layout has 6 ranks, the call 4") !=
        std::string::npos);
}
