// SPDX-License-Identifier: BSD-3-Clause
// The dynamic multicast under mpirun: every schedule and size class to random
// member sets, byte payloads around the fused limit, acks up the header tree,
// pipelined multicasts to overlapping groups from two masters, receivers that
// are not chosen, the receive forms and the errors.
//
// Every rank draws the same sequence of multicasts from one seed, so each
// knows whether it is a member and what it must receive; the data of
// multicast k is a closed-form function of (k, i), so members check it alone.
#include "support/mpi_test.hpp"
#include "support/error_checks.hpp"

#include <hpcoll/hpcoll.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace S = hpcoll::schedule;
using hpcoll_test::contains;
using hpcoll_test::error_of;

namespace {

/// Element i of multicast k.
std::uint64_t value(int k, std::size_t i) { return (static_cast<std::uint64_t>(k) << 40) ^ (i * 2654435761u + 17); }

std::vector<std::uint64_t> payload(int k, std::size_t n) {
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = value(k, i);
  return v;
}

bool holds_payload(std::span<const std::uint64_t> v, int k, std::size_t n) {
  if (v.size() < n) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (v[i] != value(k, i)) return false;
  return true;
}

/// A random non-empty member set of p ranks without the master.
hpcoll::rank_set random_set(std::mt19937& gen, int p, int master) {
  hpcoll::rank_set set(p);
  const double density = std::uniform_real_distribution<double>(0.1, 1.0)(gen);
  for (int r = 0; r < p; ++r)
    if (r != master && std::bernoulli_distribution(density)(gen)) set.insert(r);
  if (set.empty()) set.insert((master + 1 + static_cast<int>(gen() % static_cast<unsigned>(p - 1))) % p);
  return set;
}

/// The member sets every schedule meets at size p with master `master`: one
/// member (the lowest and the highest other rank), all workers, every other
/// rank (non-contiguous), and random sets.
std::vector<hpcoll::rank_set> member_sets(int p, int master, std::mt19937& gen) {
  std::vector<hpcoll::rank_set> sets;
  const auto add = [&](auto keep) {
    hpcoll::rank_set s(p);
    for (int r = 0; r < p; ++r)
      if (r != master && keep(r)) s.insert(r);
    if (!s.empty()) sets.push_back(s);
  };
  add([&](int r) { return r == (master == 0 ? 1 : 0); });
  add([&](int r) { return r == (master == p - 1 ? p - 2 : p - 1); });
  add([](int) { return true; });
  add([](int r) { return r % 2 == 1; });
  for (int i = 0; i < 3; ++i) sets.push_back(random_set(gen, p, master));
  return sets;
}

/// One multicast, run by every rank: the master sends, members receive and
/// check, the others stay out; a barrier separates it from the next.
template <class Schedule>
void one_multicast(const hpcoll::communicator& c, int k, int master, const hpcoll::rank_set& members, std::size_t n) {
  const int me = c.rank();
  if (me == master) {
    const std::vector<std::uint64_t> data = payload(k, n);
    hpcoll::request r = hpcoll::Mcast<Schedule>{}(c, data, members);
    r.wait();
  } else if (members.contains(me)) {
    std::vector<std::uint64_t> buffer(n + 3, 0xdeadbeef);
    const hpcoll::mcast_info got = hpcoll::mcast_recv(c, buffer);
    CHECK(got.master == master);
    CHECK(got.count == n);
    CHECK(got.members == members);
    CHECK(holds_payload(buffer, k, n));
    CHECK(std::all_of(buffer.begin() + static_cast<std::ptrdiff_t>(n), buffer.end(),
                      [](std::uint64_t x) { return x == 0xdeadbeef; }));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/// Element counts of the size classes: empty, one, around the member count,
/// around the fused limit of the binomial schedule, and large.
std::vector<std::size_t> counts_for(int r) {
  const std::size_t fused = hpcoll::detail::mcast_fused_limit / sizeof(std::uint64_t);
  return {0, 1, static_cast<std::size_t>(r) - 1, static_cast<std::size_t>(r) + 1, 1000, fused, fused + 1, 100003};
}

/// Byte i of multicast k, for payloads of any byte count.
unsigned char byte_value(int k, std::size_t i) { return static_cast<unsigned char>(value(k, i) >> 3); }

/// One multicast of `n` bytes (see one_multicast).
template <class Schedule>
void one_byte_multicast(const hpcoll::communicator& c, int k, int master, const hpcoll::rank_set& members,
                        std::size_t n) {
  const int me = c.rank();
  if (me == master) {
    std::vector<unsigned char> data(n);
    for (std::size_t i = 0; i < n; ++i) data[i] = byte_value(k, i);
    hpcoll::Mcast<Schedule>{}(c, data, members).wait();
  } else if (members.contains(me)) {
    std::vector<unsigned char> buffer(n + 5, 0xa5);
    const hpcoll::mcast_info got = hpcoll::mcast_recv(c, buffer);
    CHECK(got.master == master);
    CHECK(got.count == n);
    CHECK(got.members == members);
    bool same = true;
    for (std::size_t i = 0; i < n; ++i) same = same && buffer[i] == byte_value(k, i);
    CHECK(same);
    CHECK(std::all_of(buffer.begin() + static_cast<std::ptrdiff_t>(n), buffer.end(),
                      [](unsigned char x) { return x == 0xa5; }));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/// Lowers the direct-ack limit of this rank's multicasts (as master) for a scope.
class direct_ack_limit {
public:
  direct_ack_limit(const hpcoll::communicator& c, int limit)
      : ch_(c.service<hpcoll::detail::mcast_channel>()), saved_(ch_.direct_ack_limit) {
    ch_.direct_ack_limit = limit;
  }
  ~direct_ack_limit() { ch_.direct_ack_limit = saved_; }
  direct_ack_limit(const direct_ack_limit&) = delete;
  direct_ack_limit& operator=(const direct_ack_limit&) = delete;

private:
  hpcoll::detail::mcast_channel& ch_;
  int saved_;
};

/// Members 1 and p − 1 of all workers have too small a buffer: both raise,
/// the others receive, and the master's request names the lowest of them.
void lowest_failure_is_reported(const hpcoll::communicator& c) {
  const int p = c.size(), me = c.rank();
  hpcoll::rank_set workers(p);
  for (int r = 1; r < p; ++r) workers.insert(r);
  const std::vector<std::uint64_t> data = payload(9, 100);
  if (me == 0) {
    CHECK(contains(error_of([&] { hpcoll::mcast(c, data, workers).wait(); }),
                   "the receive buffer of member rank 1 holds 80 bytes, the multicast has 800"));
  } else {
    std::vector<std::uint64_t> buffer(me == 1 || me == p - 1 ? 10 : 100);
    if (me == 1 || me == p - 1) {
      CHECK(contains(error_of([&] { hpcoll::mcast_recv(c, buffer); }), "the receive buffer holds 10 elements"));
    } else {
      CHECK(hpcoll::mcast_recv(c, buffer).count == 100);
      CHECK(holds_payload(buffer, 9, 100));
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

template <class Schedule>
void every_set_and_size(int seed) {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size();
  std::mt19937 gen(static_cast<unsigned>(seed));
  int k = 0;
  for (int master = 0; master < p; ++master)
    for (const hpcoll::rank_set& members : member_sets(p, master, gen))
      for (std::size_t n : counts_for(members.count())) one_multicast<Schedule>(c, k++, master, members, n);
}

}  // namespace

TEST_CASE("mcast.schedules") {
  if (hpcoll_test::world_size() < 2) return;
  SUBCASE("automatic") { every_set_and_size<S::automatic>(1); }
  SUBCASE("binomial") { every_set_and_size<S::binomial>(2); }
  SUBCASE("scatter_ring_allgather") { every_set_and_size<S::scatter_ring_allgather>(3); }
  SUBCASE("scatter_recursive_doubling_allgather") { every_set_and_size<S::scatter_recursive_doubling_allgather>(4); }
  SUBCASE("linear") { every_set_and_size<S::linear>(7); }
}

// explain() names the schedule a multicast of that shape runs: from rank 0 to
// every group of the other ranks, at sizes whose plans send messages small
// enough for a blocking collective's node mailboxes, which a multicast never
// takes (one size per size class: the first call of a class decides it).
TEST_CASE("mcast.explain_names_the_schedule_run") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size();
  if (p < 2) return;
  const auto runs_of = [&](const std::string& schedule) {
    std::uint64_t n = 0;
    for (const hpcoll::schedule_count& k : hpcoll::schedule_counts(c))
      if (k.collective == "mcast" && k.schedule == schedule && k.dispatched) n += k.calls;
    return n;
  };
  for (int r = 1; r < p; ++r) {
    hpcoll::rank_set members(p);
    for (int m = 1; m <= r; ++m) members.insert(m);
    for (std::size_t bytes : {12000, 24000, 65536}) {
      std::vector<unsigned char> data(bytes, static_cast<unsigned char>(r));
      if (c.rank() == 0) {
        const std::string named =
            hpcoll::explain<void, unsigned char>(c, hpcoll::mcast_shape{0, p, 0, &members, bytes}).schedule();
        const std::uint64_t before = runs_of(named);
        hpcoll::mcast(c, data, members).wait();
        CHECK_MESSAGE(runs_of(named) == before + 1, r, " members, ", bytes, " bytes: explain() names ", named);
      } else if (members.contains(c.rank())) {
        std::vector<unsigned char> got(bytes);
        hpcoll::mcast_recv(c, got);
        CHECK(got == data);
      }
    }
  }
}

// Payloads of 0 and 1 byte and around the size up to which a multicast
// sends the data inside the header, whatever the schedule (just below, at,
// just above),
// from every master to one member (the lowest and the highest other rank),
// to all workers and to every other rank.
TEST_CASE("mcast.fused_boundary") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size();
  if (p < 2) return;
  const std::size_t limit = hpcoll::detail::mcast_fused_limit;
  std::mt19937 gen(11);
  int k = 0;
  for (int master = 0; master < p; ++master)
    for (const hpcoll::rank_set& members : member_sets(p, master, gen))
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, limit - 1, limit, limit + 1}) {
        one_byte_multicast<S::automatic>(c, k++, master, members, n);
        one_byte_multicast<S::binomial>(c, k++, master, members, n);
        one_byte_multicast<S::linear>(c, k++, master, members, n);
        one_byte_multicast<S::scatter_ring_allgather>(c, k++, master, members, n);
      }
}

// Groups larger than the direct-ack limit ack up the header tree: the same
// multicasts with the limit at 1 (every group of two or more), and a failure
// travels up the tree to the master.
TEST_CASE("mcast.acks_up_the_tree") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  if (c.size() < 3) return;
  const direct_ack_limit tree_acks(c, 1);
  SUBCASE("binomial") { every_set_and_size<S::binomial>(5); }
  SUBCASE("scatter_ring_allgather") { every_set_and_size<S::scatter_ring_allgather>(6); }
  SUBCASE("failure") { lowest_failure_is_reported(c); }
}

TEST_CASE("mcast.lowest_failure_is_reported") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  if (c.size() < 3) return;
  lowest_failure_is_reported(c);
}

// Two masters (ranks 0 and 1) start 30 multicasts each to random overlapping
// groups, all at once, then wait for all acks; rank 1 is also a member of
// rank 0's multicasts (and rank 0 of rank 1's). Members receive in whatever
// order the multicasts reach them and recognise each by its first element.
TEST_CASE("mcast.pipelined") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size(), me = c.rank();
  if (p < 3) return;
  constexpr int per_master = 30;
  const int masters = 2;
  struct planned {
    int k, master;
    hpcoll::rank_set members;
    std::size_t n;
  };
  std::mt19937 gen(77);
  std::vector<planned> plan;
  const std::size_t sizes[] = {1, 5, 300, 2100, 40000};
  for (int k = 0; k < masters * per_master; ++k) {
    const int master = k % masters;
    plan.push_back({k, master, random_set(gen, p, master), sizes[gen() % 5]});
  }
  std::vector<std::vector<std::uint64_t>> data;
  std::vector<hpcoll::request> sent;
  if (me < masters) {
    for (const planned& m : plan)
      if (m.master == me) {
        data.push_back(payload(m.k, m.n));
        data.back()[0] = static_cast<std::uint64_t>(m.k);
      }
    std::size_t next = 0;
    for (const planned& m : plan)
      if (m.master == me) sent.push_back(hpcoll::mcast(c, data[next++], m.members));
  }
  std::set<int> expected, seen;
  for (const planned& m : plan)
    if (m.members.contains(me)) expected.insert(m.k);
  std::vector<std::uint64_t> buffer(40000);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const hpcoll::mcast_info got = hpcoll::mcast_recv(c, buffer);
    const int k = static_cast<int>(buffer[0]);
    REQUIRE(expected.count(k) == 1);
    CHECK(seen.insert(k).second);
    const planned& m = plan[static_cast<std::size_t>(k)];
    CHECK(got.master == m.master);
    CHECK(got.members == m.members);
    CHECK(got.count == m.n);
    std::vector<std::uint64_t> want = payload(k, m.n);
    want[0] = static_cast<std::uint64_t>(k);
    CHECK(std::equal(want.begin(), want.end(), buffer.begin()));
  }
  hpcoll::wait_all(sent);
  CHECK(seen == expected);
  MPI_Barrier(MPI_COMM_WORLD);
}

// Every worker posts a receive; a multicast to some of them leaves the others'
// receives pending and their buffers untouched; a second multicast to the
// rest completes those receives.
TEST_CASE("mcast.bystanders") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size(), me = c.rank();
  if (p < 3) return;
  hpcoll::rank_set first(p), second(p);
  for (int r = 1; r < p; ++r) (r % 2 == 1 ? first : second).insert(r);
  if (second.empty()) second.insert(1);
  if (me == 0) {
    const std::vector<std::uint64_t> a = payload(1, 700), b = payload(2, 700);
    hpcoll::mcast(c, a, first).wait();
    MPI_Barrier(MPI_COMM_WORLD);
    hpcoll::mcast(c, b, second).wait();
  } else {
    std::vector<std::uint64_t> buffer(700, 7);
    hpcoll::mcast_receive r = hpcoll::mcast_irecv(c, buffer);
    if (first.contains(me)) {
      const hpcoll::mcast_info got = r.wait();
      CHECK(got.members == first);
      CHECK(holds_payload(buffer, 1, 700));
      MPI_Barrier(MPI_COMM_WORLD);
      if (second.contains(me)) {
        CHECK(hpcoll::mcast_recv(c, buffer).members == second);
        CHECK(holds_payload(buffer, 2, 700));
      }
    } else {
      for (int i = 0; i < 100; ++i) CHECK_FALSE(r.test().has_value());
      MPI_Barrier(MPI_COMM_WORLD);
      CHECK(std::all_of(buffer.begin(), buffer.end(), [](std::uint64_t x) { return x == 7; }));
      const hpcoll::mcast_info got = r.wait();
      CHECK(got.members == second);
      CHECK(holds_payload(buffer, 2, 700));
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// mcast_try_recv returns nothing until a multicast has arrived; a multicast
// that arrives before any receive is posted is kept and delivered later; the
// request form; the thread progress policy on the master.
TEST_CASE("mcast.receive_forms") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size(), me = c.rank();
  if (p < 2) return;
  hpcoll::rank_set workers(p);
  for (int r = 1; r < p; ++r) workers.insert(r);
  std::vector<std::uint64_t> buffer(5000, 0);
  if (me == 0) {
    MPI_Barrier(MPI_COMM_WORLD);  // the workers have tried and found nothing
    const std::vector<std::uint64_t> a = payload(3, 5000), b = payload(4, 20);
    hpcoll::request first = hpcoll::mcast(c, a, workers);
    hpcoll::request second = hpcoll::Mcast<S::automatic, hpcoll::progress::thread>{}(c, b, workers);
    first.wait();
    second.wait();
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    CHECK_FALSE(hpcoll::mcast_try_recv(c, buffer).has_value());
    MPI_Barrier(MPI_COMM_WORLD);
    std::optional<hpcoll::mcast_info> got;
    while (!got) got = hpcoll::mcast_try_recv(c, buffer);
    CHECK(got->count == 5000);
    CHECK(holds_payload(buffer, 3, 5000));
    hpcoll::mcast_receive r = hpcoll::mcast_irecv(c, buffer);
    std::optional<hpcoll::mcast_info> next;
    while (!next) next = r.test();
    CHECK(next->count == 20);
    CHECK(holds_payload(buffer, 4, 20));
    CHECK_FALSE(r.active());
    MPI_Barrier(MPI_COMM_WORLD);
  }
  // Multicasts that arrive with no receive posted wait in the engine.
  if (me == 0) {
    const std::vector<std::uint64_t> a = payload(5, 3), b = payload(6, 30000);
    hpcoll::request r1 = hpcoll::mcast(c, a, workers);
    hpcoll::request r2 = hpcoll::mcast(c, b, workers);
    MPI_Barrier(MPI_COMM_WORLD);
    r1.wait();
    r2.wait();
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    std::vector<std::uint64_t> x(3), y(30000);
    const hpcoll::mcast_info a = hpcoll::mcast_recv(c, x);
    const hpcoll::mcast_info b = hpcoll::mcast_recv(c, y);
    CHECK(a.count == 3);
    CHECK(holds_payload(x, 5, 3));
    CHECK(b.count == 30000);
    CHECK(holds_payload(y, 6, 30000));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("mcast.errors") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size(), me = c.rank();
  if (p < 3) return;
  const std::vector<std::uint64_t> data = payload(8, 100);
  hpcoll::rank_set workers(p);
  for (int r = 1; r < p; ++r) workers.insert(r);
  if (me == 0) {
    std::string e = error_of([&] { hpcoll::mcast(c, data, hpcoll::rank_set(p)); });
    CHECK(contains(e, "hpcoll::mcast<automatic>: the member set is empty"));
    e = error_of([&] { hpcoll::Mcast<S::binomial>{}(c, data, hpcoll::rank_set(p + 1, {p})); });
    CHECK(contains(e, "hpcoll::mcast<binomial>: the member set is a set of " + std::to_string(p + 1) +
                          " ranks, the communicator has " + std::to_string(p)));
    e = error_of([&] { hpcoll::mcast(c, data, hpcoll::rank_set(p, {0, 1})); });
    CHECK(contains(e, "the master (rank 0) is in the member set"));
    e = error_of([&] { hpcoll::rank_set(p, {p}); });
    CHECK(contains(e, "rank " + std::to_string(p) + " is not a rank of a communicator of size " + std::to_string(p)));
  }
  // Rank 1's buffer is too small: it raises, the others receive, the master's
  // request names rank 1; the next multicast to the same group works.
  if (me == 0) {
    const std::string e = error_of([&] { hpcoll::mcast(c, data, workers).wait(); });
    CHECK(contains(e, "hpcoll::mcast<"));
    CHECK(contains(e, "the receive buffer of member rank 1 holds 80 bytes, the multicast has 800"));
  } else {
    std::vector<std::uint64_t> buffer(me == 1 ? 10 : 100);
    if (me == 1) {
      const std::string e = error_of([&] { hpcoll::mcast_recv(c, buffer); });
      CHECK(contains(e, "hpcoll::mcast: mcast_recv: the receive buffer holds 10 elements (80 bytes), the "
                        "multicast from rank 0 has 800 bytes"));
    } else {
      CHECK(hpcoll::mcast_recv(c, buffer).count == 100);
      CHECK(holds_payload(buffer, 8, 100));
    }
  }
  // Bytes that are no whole number of the receiver's elements.
  const std::vector<char> three = {'a', 'b', 'c'};
  if (me == 0) {
    CHECK(contains(error_of([&] { hpcoll::mcast(c, three, workers).wait(); }), "member rank 1"));
  } else {
    std::vector<std::uint32_t> words(4);
    CHECK(contains(error_of([&] { hpcoll::mcast_recv(c, words); }), "has 3 bytes, not a whole number of 4-byte elements"));
  }
  if (me == 0) {
    hpcoll::mcast(c, data, workers).wait();
  } else {
    std::vector<std::uint64_t> buffer(100);
    CHECK(hpcoll::mcast_recv(c, buffer).count == 100);
    CHECK(holds_payload(buffer, 8, 100));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}
