// SPDX-License-Identifier: BSD-3-Clause
// The cost model derived from the schedules' rounds against the closed forms
// of Thakur, Rabenseifner & Gropp (2005), at powers of two and in between, and
// at compile time.
#include <doctest/doctest.h>

#include <hpcoll/hpcoll.hpp>
#include <hpcoll/select/cost.hpp>
#include <hpcoll/select/dispatch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace S = hpcoll::schedule;
using hpcoll::machine;
using hpcoll::predict;
using hpcoll::predict_sampled;

namespace {

/// Distinct parameters, so that a term counted wrongly shows. Hockney: gap = α,
/// no local copy cost, no protocol step, no in-cache rates.
constexpr std::size_t never = std::numeric_limits<std::size_t>::max();
constexpr machine hockney{.alpha = 3e-6, .beta = 7e-10, .gamma = 1.3e-9, .gap = 3e-6, .overhead = 0, .copy = 0,
                          .eager_bytes = never, .cache_bytes = 0};
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

TEST_CASE("cost.protocol_cache_and_crowding") {
  machine m = hockney;
  m.eager_bytes = 1000;
  m.rendezvous = 5e-6;
  const double r = m.rendezvous;
  for (const int p : {2, 5, 8}) {
    const std::size_t n = 2000;  // messages of 2000 bytes: beyond the eager size
    const auto N = static_cast<double>(n);
    // Every message of a binomial broadcast shakes hands first.
    CHECK_COST(predict<S::binomial>(hpcoll::bcast_shape{0, p, 0, n, 1}, m), ceil_lg(p) * (a + r + N * b));
    CHECK_COST(predict<S::binomial>(hpcoll::bcast_shape{0, p, 0, 1000, 1}, m), ceil_lg(p) * (a + 1000 * b));
    // The linear root's p − 1 messages each shake hands; its receivers copy
    // the data out of its memory at once, sharing its memory's bandwidth.
    CHECK_COST(predict<S::linear>(hpcoll::bcast_shape{0, p, 0, n, 1}, m),
               std::max(a + (p - 2) * a + (p - 1) * (r + N * m.source_beta), a + r + N * b));
    // Ranks crowded on their cores take turns: no copies at once, none
    // shared; a round of handshakes waits three turns on the cores (request,
    // copy, completion) of 2 (ranks per core − 1) switch times each, and the
    // round lasts at least as long as the p / 2 cores take to copy for the
    // p − 1 receivers (added to the slowest rank's time beyond its own bytes).
    machine crowded = m;
    crowded.ranks_per_core = 2;
    const double handshake_wait = 3 * 2 * crowded.switch_time;
    const double root = (p - 1) * (a + r) + handshake_wait, receiver = a + r + N * b + handshake_wait;
    const double cores_copying = 2.0 * (p - 1) / p * N * b;
    CHECK_COST(predict<S::linear>(hpcoll::bcast_shape{0, p, 0, n, 1}, crowded),
               root > receiver ? root + cores_copying : receiver + std::max(0.0, cores_copying - N * b));
    // Through a link of its own (a network, a two-copy transport) the root
    // sends every byte itself.
    machine link = m;
    link.receiver_copies = false;
    CHECK_COST(predict<S::linear>(hpcoll::bcast_shape{0, p, 0, n, 1}, link), a + (p - 2) * a + (p - 1) * (r + N * b));
    // Eager messages are copied by their sender too.
    CHECK_COST(predict<S::linear>(hpcoll::bcast_shape{0, p, 0, 1000, 1}, m), a + (p - 2) * a + (p - 1) * 1000 * b);
    // Copied into the transport's buffers and out again, an eager message's
    // bytes cost its receiver eager_copy more each, a rendezvous message's do
    // not; a sender's link carries its bytes at β.
    machine buffered = m;
    buffered.eager_copy = 2 * b;
    const hpcoll::prediction eager = predict<S::binomial>(hpcoll::bcast_shape{0, p, 0, 1000, 1}, buffered);
    CHECK_COST(eager, ceil_lg(p) * (a + 1000 * 3 * b));
    CHECK(eager.critical.eager_bytes == ceil_lg(p) * 1000);
    CHECK(eager.critical.bytes == 0);
    const hpcoll::prediction rendezvous = predict<S::binomial>(hpcoll::bcast_shape{0, p, 0, n, 1}, buffered);
    CHECK_COST(rendezvous, ceil_lg(p) * (a + r + N * b));
    CHECK(rendezvous.critical.eager_bytes == 0);
    CHECK_COST(predict<S::linear>(hpcoll::bcast_shape{0, p, 0, 1000, 1}, buffered),
               std::max(a + (p - 2) * a + (p - 1) * 1000 * b, a + 1000 * 3 * b));
    // A handshake quicker than the largest eager message's extra cost is
    // priced at that cost: one byte more never costs less.
    machine quick = buffered;
    quick.rendezvous = 1000 * b;
    CHECK_COST(predict<S::binomial>(hpcoll::bcast_shape{0, p, 0, 1001, 1}, quick), ceil_lg(p) * (a + 2000 * b + 1001 * b));
    CHECK(predict<S::binomial>(hpcoll::bcast_shape{0, p, 0, 1001, 1}, quick).seconds >
          predict<S::binomial>(hpcoll::bcast_shape{0, p, 0, 1000, 1}, quick).seconds);
  }
  // In cache: a round that reduces at most cache_bytes does so at gamma_cached.
  m = hockney;
  m.cache_bytes = 4096;
  m.gamma_cached = 1e-10;
  for (const std::size_t n : {std::size_t{4096}, std::size_t{4097}}) {
    const int p = 4;
    const auto N = static_cast<double>(n);
    const double gamma = n <= m.cache_bytes ? m.gamma_cached : m.gamma;
    CHECK_COST(predict<S::recursive_doubling>(hpcoll::allreduce_shape{0, p, n, true, false, 1}, m),
               2 * (a + N * b + N * gamma));
  }
  // Crowded: a round in which a rank receives what it sends on in the next
  // round costs 2 (ranks per core − 1) switch times more. A binomial broadcast
  // forwards in all rounds but the last; a linear one never does. A round
  // lasts at least the node's cores' share of its busy ranks' bytes: with 3
  // ranks a core, p / 3 cores (one at least) move `busy` ranks' bytes,
  // busy / cores times one rank's, where the slowest rank moves its own once.
  m = hockney;
  m.ranks_per_core = 3;
  m.switch_time = 1e-6;
  const double wait = 2 * 2 * m.switch_time;
  for (const int p : {2, 4, 8}) {
    const std::size_t n = 64;
    const double cores = std::max(1.0, p / 3.0);
    const auto others = [&](int busy) { return std::max(0.0, busy / cores - 1); };  // bytes beyond its own
    double tree_shared = 0;  // the binomial tree's round k keeps 2^(k+1) ranks busy
    for (int k = 0; k < ceil_lg(p); ++k) tree_shared += others(2 << k) * 64 * b;
    CHECK_COST(predict<S::binomial>(hpcoll::bcast_shape{0, p, 0, n, 1}, m),
               ceil_lg(p) * (a + 64 * b) + (ceil_lg(p) - 1) * wait + tree_shared);
    // The linear root sends every byte of the round; its receivers as many again.
    CHECK_COST(predict<S::linear>(hpcoll::bcast_shape{0, p, 0, n, 1}, m),
               (p - 1) * (a + 64 * b) + std::max(0.0, 2 * (p - 1) / cores - (p - 1)) * 64 * b);
    // Recursive doubling forwards every round's sum but the last's; every rank is busy every round.
    CHECK_COST(predict<S::recursive_doubling>(hpcoll::allreduce_shape{0, p, n, true, false, 1}, m),
               ceil_lg(p) * (a + (64 * b + 64 * g) * (1 + others(p))) + (ceil_lg(p) - 1) * wait);
  }
  // Fewer than two ranks a core: a forwarding rank waits only where the round
  // it receives in, or the one it sends on in, keeps more ranks busy than the
  // node has cores. 3 ranks on 2 cores: recursive doubling's fold, exchange
  // and unfold keep two busy each, the linear root's first round all three.
  // 4 ranks on 8 / 3 cores: the binomial tree's second round keeps four busy.
  machine few = hockney;
  few.switch_time = 1e-6;
  few.ranks_per_core = 1.5;
  const double one_wait = 2 * 0.5 * few.switch_time;
  const int p = 3;
  const std::size_t n = 64;
  const hpcoll::allreduce_shape three{0, p, n, true, false, 1};
  CHECK_COST(predict<S::recursive_doubling>(three, few), predict<S::recursive_doubling>(three, hockney).seconds);
  CHECK_COST(predict<S::linear>(three, few), predict<S::linear>(three, hockney).seconds + one_wait);
  // The tree's second round keeps four ranks busy on 8 / 3 cores: half a rank's bytes more.
  const hpcoll::bcast_shape four{0, 4, 0, n, 1};
  CHECK_COST(predict<S::binomial>(four, few), predict<S::binomial>(four, hockney).seconds + one_wait + 0.5 * 64 * b);
  CHECK_COST(predict<S::binomial>(hpcoll::bcast_shape{0, 3, 0, n, 1}, few),
             predict<S::binomial>(hpcoll::bcast_shape{0, 3, 0, n, 1}, hockney).seconds);
}

// A blocking call's messages of at most mailbox_bytes go through the node's
// mailboxes: a round of them costs mailbox_alpha + (m − 1)·g + mailbox_beta
// per byte of the busier side, whatever the MPI library's protocol step; a
// round with larger messages is priced as without mailboxes.
TEST_CASE("cost.mailboxes") {
  machine m = hockney;
  m.eager_bytes = 100;
  m.rendezvous = 5e-6;
  m.mailbox_bytes = 1000;
  m.mailbox_alpha = 0.5e-6;
  m.mailbox_beta = 3e-10;
  const double ma = m.mailbox_alpha, mb = m.mailbox_beta;
  for (const int p : {2, 3, 5, 8}) {
    for (const std::size_t n : {std::size_t{64}, std::size_t{1000}}) {
      const auto N = static_cast<double>(n);
      const hpcoll::prediction tree = predict<S::binomial>(hpcoll::bcast_shape{0, p, 0, n, 1}, m);
      CHECK_COST(tree, ceil_lg(p) * (ma + N * mb));
      CHECK(tree.critical.mailbox_messages == ceil_lg(p));
      CHECK(tree.critical.mailbox_bytes == ceil_lg(p) * N);
      CHECK(tree.critical.messages == 0);
      // The linear gather's root receives p − 1 messages in one round.
      CHECK_COST(predict<S::linear>(hpcoll::gather_shape{0, p, 0, n, false, 1}, m), ma + (p - 2) * a + (p - 1) * N * mb);
    }
    const std::size_t n = 1001;  // beyond the mailboxes: the MPI library's rendezvous
    CHECK_COST(predict<S::binomial>(hpcoll::bcast_shape{0, p, 0, n, 1}, m), ceil_lg(p) * (a + 5e-6 + 1001 * b));
  }
  // Recursive doubling's exchanges of 800 bytes, reduced in place.
  const int p = 8;
  const std::size_t n = 800;
  CHECK_COST(predict<S::recursive_doubling>(hpcoll::allreduce_shape{0, p, n, true, false, 1}, m),
             3 * (ma + 800 * mb + 800 * g));
}

TEST_CASE("cost.compile_time") {
  // For a fixed p and size, schedules compare in static_assert ...
  constexpr hpcoll::allreduce_shape small{0, 64, 16, true, false, 8}, large{0, 64, std::size_t{1} << 22, true, false, 8};
  static_assert(predict<S::recursive_doubling>(small, machine{}).seconds < predict<S::ring>(small, machine{}).seconds);
  static_assert(predict<S::rabenseifner>(large, machine{}).seconds <
                predict<S::recursive_doubling>(large, machine{}).seconds);
  // The dispatcher's walk, shortcuts and all, runs at compile time too.
  constexpr hpcoll::allreduce_shape wide{0, 4096, std::size_t{1} << 22, true, false, 8};
  static_assert(predict_sampled<S::ring>(wide, machine{}).rounds == 2 * 4095);
  static_assert(predict_sampled<S::rabenseifner>(wide, machine{}).seconds < predict_sampled<S::ring>(wide, machine{}).seconds);
  // ... and a collective object can be instantiated with the cheapest.
  using short_bcast = hpcoll::cheapest<hpcoll::bcast_shape{0, 64, 0, 64, 1}, machine{}, S::linear, S::binomial,
                                       S::scatter_ring_allgather>;
  // A long message through links (receivers do not copy out of the root's
  // memory) is scattered and gathered again; so it is in shared memory, where
  // the 63 receivers' copies out of the root's memory share its bandwidth —
  // but for ranks crowded on their cores, which cannot copy at once.
  constexpr hpcoll::bcast_shape long_message{0, 64, 0, std::size_t{1} << 24, 1};
  using long_bcast = hpcoll::cheapest<long_message, machine{.receiver_copies = false}, S::linear, S::binomial,
                                      S::scatter_ring_allgather>;
  using long_shared_bcast =
      hpcoll::cheapest<long_message, machine{}, S::linear, S::binomial, S::scatter_ring_allgather>;
  using long_crowded_bcast =
      hpcoll::cheapest<long_message, machine{.ranks_per_core = 2}, S::linear, S::binomial, S::scatter_ring_allgather>;
  static_assert(std::is_same_v<hpcoll::Bcast<short_bcast>::schedule_type, S::binomial>);
  static_assert(std::is_same_v<hpcoll::Bcast<long_bcast>::schedule_type, S::scatter_ring_allgather>);
  static_assert(std::is_same_v<hpcoll::Bcast<long_shared_bcast>::schedule_type, S::scatter_ring_allgather>);
  static_assert(std::is_same_v<hpcoll::Bcast<long_crowded_bcast>::schedule_type, S::linear>);
  CHECK(hpcoll::schedule_name<long_bcast>() == "scatter_allgather<binomial, ring>");
}

namespace {

/// The tolerance of the dispatcher's walk against the full walk. A sampled
/// walk may miss, in a round, the rank whose block is one element larger than
/// the sample's largest (blocks of an uneven layout differ by one element), so
/// in each round each term of the critical path may differ by one element's
/// bytes — and where blocks of one and no element meet (counts below p), by one
/// message. One element may also take a message across the eager size: the
/// link's bytes then move between the β and the eager term, so their sum is
/// compared. Checked: |Δseconds| ≤ rounds · (α + elem_size · (β + eager_copy +
/// γ + copy)), and the same bound per term; where every block has the same
/// count, relative 1e-12, each term alone.
struct shortcut_check {
  const machine& m;
  int compared = 0;

  template <class Sch, class Shape>
  void check(const Shape& shape, bool blocks_alike) {
    const hpcoll::prediction full = predict<Sch>(shape, m), fast = predict_sampled<Sch>(shape, m);
    INFO(Shape::name, " ", hpcoll::schedule_name<Sch>(), " p = ", shape.size, ", bytes ", hpcoll::message_bytes(shape),
         ", elem ", shape.elem_size);
    CHECK(fast.rounds == full.rounds);
    const double es = static_cast<double>(shape.elem_size), rounds = full.rounds;
    const auto near = [&](double x, double y, double per_round) {
      if (blocks_alike) return x == doctest::Approx(y).epsilon(1e-12).scale(1e-300);
      return std::abs(x - y) <= rounds * per_round * (1 + 1e-12) + 1e-15;
    };
    CHECK(near(fast.seconds, full.seconds, m.alpha + es * (m.beta + m.eager_copy + m.gamma + m.copy)));
    CHECK(near(fast.critical.messages, full.critical.messages, 1));
    CHECK(near(fast.critical.bytes + fast.critical.eager_bytes, full.critical.bytes + full.critical.eager_bytes, es));
    if (blocks_alike) {
      CHECK(near(fast.critical.bytes, full.critical.bytes, es));
      CHECK(near(fast.critical.eager_bytes, full.critical.eager_bytes, es));
    }
    CHECK(near(fast.critical.reduced, full.critical.reduced, es));
    CHECK(near(fast.critical.copied, full.critical.copied, es));
    ++compared;
  }
  /// The flat candidates (node-aware ones are walked on nodes: node_cost_test.cpp).
  template <class Shape>
  void each_candidate(const Shape& shape, bool blocks_alike) {
    S::for_each_candidate<Shape>([&](auto type, std::size_t) {
      using Sch = typename decltype(type)::type;
      if constexpr (!hpcoll::uses_node_layout<Sch>) check<Sch>(shape, blocks_alike);
    });
  }
};

}  // namespace

TEST_CASE("cost.shortcuts") {
  // Above 64 ranks the dispatcher takes the shortcuts schedules declare
  // (sampled ranks, cost hints); for every candidate of every collective it
  // must find the full walk's cost, rounds and critical terms — on a machine
  // whose protocol step and cache size fall inside the sizes tried, and
  // whose eager bytes cost more than the others: one process count in two
  // with a handshake above the largest eager message's extra cost, one in two
  // with one below, which the model raises to it. (A crowded machine gets the
  // full walk: see predict_sampled.)
  const machine m{.alpha = 3e-6, .beta = 7e-10, .gamma = 1.3e-9, .gap = 1e-6, .overhead = 0, .copy = 2e-10,
                  .eager_bytes = 1000, .rendezvous = 4e-6, .cache_bytes = 20000, .gamma_cached = 3e-10,
                  .copy_cached = 1e-10, .eager_copy = 9e-10};
  machine quick_handshake = m;
  quick_handshake.rendezvous = 4e-7;
  shortcut_check slow_handshakes{m}, quick_handshakes{quick_handshake};
  int count_index = 0;
  for (const int p : {65, 100, 128, 200, 257, 300, 384, 513, 1000, 2048}) {
    shortcut_check& c = count_index++ % 2 == 0 ? slow_handshakes : quick_handshakes;
    const auto P = static_cast<std::size_t>(p);
    // Elements of a vector collective's vector: none, one, fewer than p, uneven, a multiple of p, large.
    std::vector<std::size_t> vectors{0, 1, P / 3, 3 * P + 1, 4 * P, std::size_t{1} << 18};
    // Elements of a block collective's block: none, one, a few.
    std::vector<std::size_t> blocks{0, 1, 5};
    std::vector<int> roots{0, 1, p / 3, p - 1};
    if (p == 2048) vectors = {1, 3 * P + 1}, blocks = {3}, roots = {p / 3};  // the full walk is slow
    for (const std::size_t elem : {std::size_t{1}, std::size_t{8}}) {
      for (const std::size_t n : vectors) {
        const bool alike = n % P == 0;
        for (const int root : roots) {
          c.each_candidate(hpcoll::bcast_shape{0, p, root, n, elem}, alike);
          c.each_candidate(hpcoll::reduce_shape{0, p, root, n, true, false, elem}, true);
          c.each_candidate(hpcoll::reduce_shape{0, p, root, n, false, root == 1, elem}, true);
        }
        for (const bool in_place : {false, true}) c.each_candidate(hpcoll::allreduce_shape{0, p, n, true, in_place, elem}, alike);
      }
      for (const std::size_t n : blocks) {
        for (const int root : roots) {
          for (const bool in_place : {false, true}) {
            c.each_candidate(hpcoll::gather_shape{0, p, root, n, in_place, elem}, true);
            c.each_candidate(hpcoll::scatter_shape{0, p, root, n, in_place, elem}, true);
          }
          const std::vector<std::size_t> counts(P, n), displs = [&] {
            std::vector<std::size_t> d(P);
            for (std::size_t i = 0; i < P; ++i) d[i] = i * n;
            return d;
          }();
          c.each_candidate(hpcoll::gatherv_shape{0, p, root, n, counts, displs, false, elem}, true);
          if (root == 0) c.each_candidate(hpcoll::alltoallv_shape{0, p, counts, displs, counts, displs, false, elem}, true);
        }
        const std::vector<std::size_t> counts(P, n), starts = [&] {
          std::vector<std::size_t> d(P + 1);
          for (std::size_t i = 0; i <= P; ++i) d[i] = i * n;
          return d;
        }();
        for (const bool in_place : {false, true}) {
          c.each_candidate(hpcoll::allgather_shape{0, p, n, in_place, elem}, true);
          c.each_candidate(
              hpcoll::allgatherv_shape{0, p, n, counts, std::span(starts).first(P), starts, in_place, elem, true}, true);
          c.each_candidate(hpcoll::reduce_scatter_block_shape{0, p, n, true, in_place, elem}, true);
          c.each_candidate(hpcoll::alltoall_shape{0, p, n, in_place, elem}, true);
        }
      }
    }
  }
  CHECK(slow_handshakes.compared > 2500);
  CHECK(quick_handshakes.compared > 2500);
}

TEST_CASE("cost.busiest_run_sum") {
  // A run whose maxima switch (receives, then sends; bytes in, then out) and
  // whose first rounds send nothing is summed piecewise: as round by round.
  hpcoll::detail::stated_hints h;
  h.first = {.sends = 0, .recvs = 0, .out = 0, .in = 40, .reduced = 3, .copied = 0};
  h.growth = {.sends = 1, .recvs = 0, .out = 7, .in = 0, .reduced = 1, .copied = 2};
  // The protocol step (56 bytes a message), the cache size and the side whose bytes take
  // longest (the received eager ones, then the sent ones) are crossed within the run.
  const machine m{.alpha = 3e-6, .beta = 7e-10, .gamma = 1.3e-9, .gap = 1e-6, .overhead = 0, .copy = 2e-10,
                  .eager_bytes = 50, .rendezvous = 4e-6, .cache_bytes = 400, .gamma_cached = 3e-10,
                  .copy_cached = 1e-10, .eager_copy = 9e-10};
  for (const int rounds : {1, 2, 9, 100, 1001}) {
    for (const int recvs : {0, 4}) {
      h.first.recvs = recvs;
      const hpcoll::detail::rounds_cost sum = hpcoll::detail::busiest_run_cost(h, 0, rounds - 1, m, 8);
      hpcoll::detail::rounds_cost each;
      for (int j = 0; j < rounds; ++j) {
        hpcoll::detail::slowest_rank one{m, 8};
        one.show(hpcoll::detail::grown(h.first, h.growth, j), false);
        each.add(one.cost());
      }
      INFO("rounds ", rounds, ", receives ", recvs);
      CHECK(sum.seconds == doctest::Approx(each.seconds).epsilon(1e-12));
      CHECK(sum.critical.messages == doctest::Approx(each.critical.messages).epsilon(1e-12));
      CHECK(sum.critical.bytes == doctest::Approx(each.critical.bytes).epsilon(1e-12));
      CHECK(sum.critical.eager_bytes == doctest::Approx(each.critical.eager_bytes).epsilon(1e-12));
      CHECK(sum.critical.reduced == doctest::Approx(each.critical.reduced).epsilon(1e-12));
      CHECK(sum.critical.copied == doctest::Approx(each.critical.copied).epsilon(1e-12));
      CHECK(sum.critical.handshakes == doctest::Approx(each.critical.handshakes).epsilon(1e-12));
    }
  }
}

TEST_CASE("cost.crowded_takes_the_full_walk") {
  machine m{};
  m.ranks_per_core = 2;
  const hpcoll::bcast_shape call{0, 300, 7, 1000, 1};
  CHECK(predict_sampled<S::binomial>(call, m).seconds == predict<S::binomial>(call, m).seconds);
  CHECK(predict_sampled<S::binomial>(call, m).critical.waits > 0);
}

TEST_CASE("cost.shortcuts_need_blocks_alike") {
  // A gatherv whose counts differ is priced by the full walk: hints may take blocks alike.
  const int p = 300;
  std::vector<std::size_t> counts(p), displs(p);
  for (int i = 0; i < p; ++i) counts[i] = static_cast<std::size_t>(i % 7 == 0 ? 1000 : 10), displs[i] = 1000 * i;
  const hpcoll::gatherv_shape skewed{0, p, 0, counts[0], counts, displs, false, 4};
  const machine m{};
  CHECK(predict_sampled<S::linear_sync<8>>(skewed, m).seconds == predict<S::linear_sync<8>>(skewed, m).seconds);
  CHECK(predict_sampled<S::linear>(skewed, m).seconds == predict<S::linear>(skewed, m).seconds);
  // So is an allgatherv's.
  std::vector<std::size_t> starts(p + 1, 0);
  for (int i = 0; i < p; ++i) starts[i + 1] = starts[i] + counts[i];
  const hpcoll::allgatherv_shape uneven{0, p, counts[0], counts, std::span(starts).first(p), starts, false, 4, true};
  CHECK(predict_sampled<S::ring>(uneven, m).seconds == predict<S::ring>(uneven, m).seconds);
  CHECK(predict_sampled<S::bruck>(uneven, m).seconds == predict<S::bruck>(uneven, m).seconds);
}

TEST_CASE("cost.per_rank_collectives_priced_as_regular") {
  // gatherv and alltoallv are priced as gather and alltoall of nominal blocks
  // (select/traits.hpp): each candidate must cost what its walk of the
  // v-shape with every block nominal costs, crowded or not, sampled or not.
  for (const int p : {1, 2, 3, 5, 8, 64, 300, 5000})
    for (const std::size_t elem : {std::size_t{1}, std::size_t{4}, std::size_t{12}, std::size_t{8192}})
      for (const double ranks_per_core : {1.0, 2.0}) {
        if (p > 300 && ranks_per_core > 1) continue;  // crowded, the full walk: O(p²)
        machine m{};
        m.ranks_per_core = ranks_per_core;
        const std::size_t n = hpcoll::nominal_block_count(elem);
        std::vector<std::size_t> counts(static_cast<std::size_t>(p), n), displs(counts.size());
        for (std::size_t i = 0; i < displs.size(); ++i) displs[i] = i * n;
        const auto matches = [&](const auto& nominal, const auto& caller) {
          using Shape = std::remove_cvref_t<decltype(nominal)>;
          const hpcoll::decision d = hpcoll::decide(caller, m, nullptr, nullptr);
          S::for_each_candidate<Shape>([&](auto type, std::size_t i) {
            using Sch = typename decltype(type)::type;
            INFO(Shape::name, " ", d.candidates[i].schedule, " p = ", p, ", ", elem, " B elements, ", ranks_per_core,
                 " ranks a core");
            CHECK(d.candidates[i].predicted_seconds == doctest::Approx(predict_sampled<Sch>(nominal, m).seconds));
          });
        };
        // The caller's own counts play no part: every rank decides alike.
        const std::vector<std::size_t> own(counts.size(), 3), zero(counts.size(), 0);
        for (const int root : {0, p - 1})
          matches(hpcoll::gatherv_shape{0, p, root, n, counts, displs, false, elem},
                  hpcoll::gatherv_shape{std::min(1, p - 1), p, root, 3, own, zero, root == 0, elem});
        matches(hpcoll::alltoallv_shape{0, p, counts, displs, counts, displs, false, elem},
                hpcoll::alltoallv_shape{0, p, own, zero, zero, zero, true, elem});
      }
}

TEST_CASE("cost.mcast_priced_as_its_plan") {
  // A multicast candidate is priced as the broadcast it runs (select/traits.hpp,
  // mcast/plan.hpp): linear over the master and the members, the others among
  // the members after the master's hop. On ranks with a core each that is the
  // walk of its multicast plan on every rank, bystanders included. (Binomial
  // is priced as the broadcast tree, whose ranks send to one child a round;
  // the multicast sends to all children at once. Crowded, the bystanders
  // share the cores.)
  const machine m{};
  for (const int p : {2, 3, 4, 5, 8, 13})
    for (const int master : {0, p / 2, p - 1})
      for (const int stride : {1, 2, 3}) {
        hpcoll::rank_set members(p);
        for (int r = (master + 1) % p; r != master && !members.contains(r); r = (r + stride) % p) members.insert(r);
        for (const std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{100000}}) {
          const hpcoll::mcast_shape call{master, p, master, &members, n, 4};
          const hpcoll::decision d = hpcoll::decide(call, m, nullptr, nullptr);
          S::for_each_candidate<hpcoll::mcast_shape>([&](auto type, std::size_t i) {
            using Sch = typename decltype(type)::type;
            if constexpr (!std::same_as<Sch, S::binomial>) {
              INFO(d.candidates[i].schedule, " p = ", p, ", master ", master, ", ", members.count(), " members, ", n,
                   " elements");
              CHECK(d.candidates[i].predicted_seconds == doctest::Approx(predict<Sch>(call, m).seconds));
            }
          });
        }
      }
}

TEST_CASE("cost.decisions_at_65536_ranks") {
  // Every collective decides at p = 65536 (probe_dispatch_decision_time measures
  // how long it takes); the full walk would take minutes.
  const int p = 65536;
  const machine m{};
  const std::vector<std::size_t> nominal(p);
  const auto decides = [&](const auto& shape) {
    const hpcoll::decision d = hpcoll::decide(shape, m, nullptr, nullptr);
    INFO(d.to_string());
    CHECK(d.candidates.size() == S::candidate_count<std::remove_cvref_t<decltype(shape)>>);
    for (const auto& e : d.candidates) CHECK((!e.valid || e.predicted_seconds > 0));
  };
  decides(hpcoll::bcast_shape{0, p, 7, 1 << 20, 4});
  decides(hpcoll::reduce_shape{0, p, p - 1, 1 << 20, true, false, 4});
  decides(hpcoll::allreduce_shape{0, p, 1 << 20, true, false, 4});
  decides(hpcoll::allreduce_shape{0, p, 1 << 20, false, false, 4});
  decides(hpcoll::gather_shape{0, p, 0, 256, false, 4});
  decides(hpcoll::gatherv_shape{0, p, 0, 256, nominal, nominal, false, 4});
  decides(hpcoll::scatter_shape{0, p, 3, 256, false, 4});
  decides(hpcoll::allgather_shape{0, p, 256, false, 4});
  std::vector<std::size_t> counts(p, 64), starts(p + 1);
  for (std::size_t i = 0; i < starts.size(); ++i) starts[i] = 64 * i;
  decides(hpcoll::allgatherv_shape{0, p, 64, counts, std::span(starts).first(p), starts, false, 4, true});
  decides(hpcoll::reduce_scatter_block_shape{0, p, 256, true, false, 4});
  decides(hpcoll::alltoall_shape{0, p, 256, false, 4});
  decides(hpcoll::alltoallv_shape{0, p, nominal, nominal, nominal, nominal, false, 4});
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
