// SPDX-License-Identifier: BSD-3-Clause
// Bad input gets a clear hpcoll::error naming the collective, the schedule and
// the problem, before any message is sent — and in checked mode on every rank.
#include "support/collective_test.hpp"
#include "support/error_checks.hpp"

#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

namespace S = hpcoll::schedule;
using hpcoll_test::world_rank;
using hpcoll_test::world_size;
using hpcoll_test::contains;
using hpcoll_test::error_of;

namespace {

/// After errors, the communicator must still work: no message was sent, and
/// every rank's operation sequence is still aligned.
void still_works(const hpcoll::communicator& c) {
  std::vector<long> in(5, c.rank() + 1), out(5, 0);
  hpcoll::Allreduce<S::ring>{}(c, in, out, hpcoll::op::sum{});
  const long expected = static_cast<long>(c.size()) * (c.size() + 1) / 2;
  CHECK(out == std::vector<long>(5, expected));
}

using checked_gather = hpcoll::Gather<S::binomial, hpcoll::check::always>;

}  // namespace

TEST_CASE("errors.sizes") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  const auto p = static_cast<std::size_t>(c.size());
  std::vector<int> in(4, 1), short_out(3), out(4);

  // Every rank sees the problem, so every rank raises: no hang, no checked mode needed.
  const auto allreduce = error_of([&] { hpcoll::Allreduce<S::ring>{}(c, in, short_out, hpcoll::op::sum{}); });
  CHECK(allreduce == "hpcoll::allreduce<ring>: output has 3 elements, input has 4");

  std::vector<int> gathered(4 * p + 1);
  const auto allgather = error_of([&] { hpcoll::Allgather<S::bruck>{}(c, in, gathered); });
  CHECK(contains(allgather, "hpcoll::allgather<bruck>: output has " + std::to_string(4 * p + 1)));

  std::vector<int> uneven(p * 3 + 1);
  const auto alltoall = error_of([&] { hpcoll::Alltoall<S::pairwise>{}(c, uneven, uneven); });
  CHECK(contains(alltoall, "hpcoll::alltoall<pairwise>: "));

  std::vector<int> big(p * 4);
  const auto rsb = error_of([&] { hpcoll::ReduceScatterBlock<S::ring>{}(c, big, short_out, hpcoll::op::sum{}); });
  CHECK(contains(rsb, "hpcoll::reduce_scatter_block<ring>: input has " + std::to_string(p * 4) + " elements, it needs"));

  const auto overlap = error_of([&] {
    hpcoll::Allreduce<S::recursive_doubling>{}(c, std::span<const int>(in), std::span<int>(in), hpcoll::op::sum{});
  });
  CHECK(contains(overlap, "input and output overlap; use the hpcoll::in_place form"));
  still_works(c);
}

TEST_CASE("errors.roots") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  std::vector<double> buf(8, 1.0), out(8);
  for (int bad : {-1, c.size(), c.size() + 5}) {
    CAPTURE(bad);
    CHECK(error_of([&] { hpcoll::Bcast<S::binomial>{}(c, buf, bad); }) ==
          "hpcoll::bcast<binomial>: root " + std::to_string(bad) + " is not a rank of a communicator of size " +
              std::to_string(c.size()));
    CHECK(contains(error_of([&] { hpcoll::Reduce<S::linear>{}(c, buf, out, hpcoll::op::max{}, bad); }),
                   "hpcoll::reduce<linear>: root"));
    CHECK(contains(error_of([&] { hpcoll::Scatter<S::linear_sync<2>>{}(c, buf, out, bad); }),
                   "hpcoll::scatter<linear_sync<2>>: root"));
  }
  // Only the root may pass in_place to a rooted collective. Only the other
  // ranks can see that, so checked mode tells the root too.
  if (c.size() > 1) {
    const auto misuse = error_of([&] {
      hpcoll::Reduce<S::binomial, hpcoll::check::always>{}(c, hpcoll::in_place, buf, hpcoll::op::sum{}, 0);
    });
    if (c.rank() == 0)
      CHECK(contains(misuse, "hpcoll::reduce<binomial>: rank "));
    else
      CHECK(misuse == "hpcoll::reduce<binomial>: only the root may use the in-place form");
  }
  still_works(c);
}

TEST_CASE("errors.checked_mode_root_only_problem") {
  // A problem only the root can see (its output is too small): in checked mode
  // the root names it and every other rank learns that the root was wrong.
  hpcoll::communicator c(MPI_COMM_WORLD);
  const int root = c.size() - 1;
  std::vector<int> in(3, c.rank()), out(c.rank() == root ? 3 * c.size() - 1 : 0);
  const auto e = error_of([&] { checked_gather{}(c, in, out, root); });
  if (c.rank() == root)
    CHECK(contains(e, "hpcoll::gather<binomial>: the root's output has"));
  else
    CHECK(e == "hpcoll::gather<binomial>: rank " + std::to_string(root) + " was called with invalid arguments");
  still_works(c);
}

TEST_CASE("errors.checked_mode_disagreement") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  if (c.size() == 1) return;  // one rank always agrees with itself
  using checked_bcast = hpcoll::Bcast<S::binomial, hpcoll::check::always>;
  std::vector<int> buf(6);

  // Ranks name different roots: every rank raises instead of hanging.
  const auto roots = error_of([&] { checked_bcast{}(c, buf, c.rank() == 0 ? 1 : 0); });
  CHECK(roots == "hpcoll::bcast<binomial>: ranks disagree on the root (values from 0 to 1)");

  // Ranks pass different counts.
  std::vector<int> mine(c.rank() == 1 ? 7 : 6);
  CHECK(contains(error_of([&] { checked_bcast{}(c, mine, 0); }), "ranks disagree on the element count (values from 6 to 7)"));

  // Ranks choose different schedules for the same call.
  std::vector<int> in(4, 1), out(4);
  const auto schedules = error_of([&] {
    if (c.rank() == 0)
      hpcoll::Allreduce<S::ring, hpcoll::check::always>{}(c, in, out, hpcoll::op::sum{});
    else
      hpcoll::Allreduce<S::recursive_doubling, hpcoll::check::always>{}(c, in, out, hpcoll::op::sum{});
  });
  CHECK(contains(schedules, "ranks disagree on the schedule"));

  // Ranks call different collectives.
  const auto collectives = error_of([&] {
    if (c.rank() == 0)
      hpcoll::Bcast<S::linear, hpcoll::check::always>{}(c, buf, 0);
    else
      hpcoll::Allreduce<S::linear, hpcoll::check::always>{}(c, in, out, hpcoll::op::sum{});
  });
  CHECK(contains(collectives, "ranks disagree on the collective"));
  still_works(c);
}

TEST_CASE("errors.counts") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size();
  const int root = 0;
  std::vector<int> in(2, c.rank());
  std::vector<int> out(c.rank() == root ? 2 * static_cast<std::size_t>(p) : 0);

  // Negative counts (as int) at the root, caught in checked mode on every rank.
  std::vector<int> counts(static_cast<std::size_t>(p), 2), displs(static_cast<std::size_t>(p));
  std::iota(displs.begin(), displs.end(), 0);
  for (auto& d : displs) d *= 2;
  counts.back() = -2;
  const auto negative =
      error_of([&] { hpcoll::Gatherv<S::linear, hpcoll::check::always>{}(c, in, out, counts, displs, root); });
  if (c.rank() == root)
    CHECK(contains(negative, "hpcoll::gatherv<linear>: counts[" + std::to_string(p - 1) + "] is negative (-2)"));
  else
    CHECK(contains(negative, "was called with invalid arguments"));

  // The root's own count negative, packed form: named as negative, not as the 0 it was converted to.
  std::vector<int> own_negative(static_cast<std::size_t>(p), 2);
  own_negative[root] = -2;
  const auto own = error_of([&] { hpcoll::Gatherv<S::linear, hpcoll::check::always>{}(c, in, out, own_negative, root); });
  if (c.rank() == root)
    CHECK(own == "hpcoll::gatherv<linear>: counts[0] is negative (-2)");
  else
    CHECK(contains(own, "was called with invalid arguments"));

  // A rank that sends another count than the root expects.
  counts.back() = 2;
  std::vector<int> odd(c.rank() == p - 1 && p > 1 ? 3 : 2, 0);
  const auto mismatch =
      error_of([&] { hpcoll::Gatherv<S::linear, hpcoll::check::always>{}(c, odd, out, counts, displs, root); });
  if (p > 1) CHECK(contains(mismatch, "hpcoll::gatherv<linear>: "));
  if (p > 1 && c.rank() == p - 1) CHECK(contains(mismatch, "sends 3 elements, the root expects 2"));

  // A block that does not fit the output.
  displs.back() = 2 * p - 1;
  if (c.rank() == root)
    CHECK(contains(error_of([&] { hpcoll::Gatherv<S::linear, hpcoll::check::always>{}(c, in, out, counts, displs, root); }),
                   "receive block " + std::to_string(p - 1) + " (2 elements at " + std::to_string(2 * p - 1) +
                       ") does not fit"));
  else
    CHECK(!error_of([&] { hpcoll::Gatherv<S::linear, hpcoll::check::always>{}(c, in, out, counts, displs, root); }).empty());

  // Alltoallv: what rank i sends to j must be what j expects from i.
  const auto P = static_cast<std::size_t>(p);
  std::vector<std::size_t> sc(P, 1), sd(P), rc(P, 1), rd(P);
  std::iota(sd.begin(), sd.end(), std::size_t{0});
  std::iota(rd.begin(), rd.end(), std::size_t{0});
  if (c.rank() == 0) rc[P - 1] = 0;  // rank 0 expects nothing from the last rank, which sends 1
  std::vector<int> a(P), b(P);
  const auto v = error_of([&] { hpcoll::Alltoallv<S::pairwise, hpcoll::check::always>{}(c, a, sc, sd, b, rc, rd); });
  CHECK(contains(v, "hpcoll::alltoallv<pairwise>: "));
  if (c.rank() == 0) CHECK(contains(v, "rank " + std::to_string(p - 1) + " sends 1 elements to rank 0, which expects 0"));
  still_works(c);
}

TEST_CASE("errors.allgatherv") {
  hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size(), last = p - 1;
  const auto P = static_cast<std::size_t>(p);
  using checked = hpcoll::Allgatherv<S::ring, hpcoll::check::always>;
  const std::string ring = "hpcoll::allgatherv<ring>: ";
  const std::string invalid = ring + "rank " + std::to_string(last) + " was called with invalid arguments";
  // Two elements from every rank, packed in rank order.
  std::vector<int> in(2, c.rank()), out(2 * P), counts(P, 2), displs(P);
  for (std::size_t q = 0; q < P; ++q) displs[q] = 2 * static_cast<int>(q);

  // Every rank sees these, so every rank raises: no hang, no checked mode needed.
  std::vector<int> extra(P + 1, 2);
  const std::string entries = " entries, the communicator has " + std::to_string(p) + " ranks";
  CHECK(error_of([&] { hpcoll::Allgatherv<S::bruck>{}(c, in, out, extra, displs); }) ==
        "hpcoll::allgatherv<bruck>: receive counts have " + std::to_string(p + 1) + entries);
  CHECK(error_of([&] { hpcoll::Allgatherv<S::bruck>{}(c, in, out, extra); }) ==
        "hpcoll::allgatherv<bruck>: receive counts have " + std::to_string(p + 1) + entries);
  const std::vector<int> short_displs(displs.begin(), displs.end() - 1);
  CHECK(error_of([&] { hpcoll::Allgatherv<S::linear>{}(c, in, out, counts, short_displs); }) ==
        "hpcoll::allgatherv<linear>: receive displacements have " + std::to_string(p - 1) + entries);
  const auto dispatched = error_of([&] { hpcoll::allgatherv(c, hpcoll::in_place, out, extra); });
  CHECK(contains(dispatched, "hpcoll::allgatherv<"));
  CHECK(contains(dispatched, ">: receive counts have " + std::to_string(p + 1) + entries));
  CHECK(error_of([&] {
          hpcoll::Allgatherv<S::recursive_doubling>{}(c, std::span<const int>(out).first(2), std::span<int>(out), counts,
                                                      displs);
        }) == "hpcoll::allgatherv<recursive_doubling>: input and output overlap; use the hpcoll::in_place form");

  // Negative counts (as int) on every rank.
  std::vector<int> negative = counts;
  negative.back() = -2;
  const std::string is_negative = "counts[" + std::to_string(last) + "] is negative (-2)";
  CHECK(error_of([&] { checked{}(c, in, out, negative, displs); }) == ring + is_negative);
  CHECK(error_of([&] { hpcoll::Allgatherv<S::ring>{}(c, in, out, negative, displs); }) == ring + is_negative);
  CHECK(error_of([&] { checked{}(c, hpcoll::in_place, out, negative); }) == ring + is_negative);
  CHECK(error_of([&] { checked{}(c, in, out, negative); }) == ring + is_negative);

  // Problems one rank alone sees, told to every rank in checked mode: the last
  // rank sends another count than counts[last] ...
  std::vector<int> odd(c.rank() == last ? 3 : 2, 0);
  const auto mismatch = error_of([&] { checked{}(c, odd, out, counts, displs); });
  if (c.rank() == last)
    CHECK(mismatch == ring + "rank " + std::to_string(last) + " sends 3 elements but counts[" + std::to_string(last) +
                          "] is 2");
  else
    CHECK(mismatch == invalid);
  const auto mismatch_packed = error_of([&] { checked{}(c, odd, out, counts); });
  if (c.rank() == last)
    CHECK(contains(mismatch_packed, "sends 3 elements but counts[" + std::to_string(last) + "] is 2"));
  else
    CHECK(mismatch_packed == invalid);

  // ... its last block does not fit its output ...
  std::vector<int> outside = displs;
  if (c.rank() == last) outside.back() = 2 * p - 1;
  const auto fit = error_of([&] { checked{}(c, in, out, counts, outside); });
  if (c.rank() == last)
    CHECK(fit == ring + "receive block " + std::to_string(last) + " (2 elements at " + std::to_string(2 * p - 1) +
                     ") does not fit in " + std::to_string(2 * p) + " elements");
  else
    CHECK(fit == invalid);

  // ... its receive blocks overlap: in rank order, then out of order.
  if (p > 1) {
    std::vector<int> overlapping = displs;
    if (c.rank() == last) overlapping[1] = 1;
    const auto overlap = error_of([&] { checked{}(c, in, out, counts, overlapping); });
    if (c.rank() == last)
      CHECK(overlap == ring + "receive blocks 0 (2 elements at 0) and 1 (2 elements at 1) overlap");
    else
      CHECK(overlap == invalid);
    if (c.rank() == last) {
      overlapping[0] = 1;
      overlapping[1] = 0;
    }
    const auto unordered = error_of([&] { checked{}(c, hpcoll::in_place, out, counts, overlapping); });
    if (c.rank() == last)
      CHECK(unordered == ring + "receive blocks 1 (2 elements at 0) and 0 (2 elements at 1) overlap");
    else
      CHECK(unordered == invalid);
  }

  // Ranks given different counts: with different sums the signature tells;
  // with the same sum, the comparison of the counts themselves.
  if (p > 1) {
    std::vector<int> more = counts, moved = counts;
    if (c.rank() == last) {
      more[0] = 3;
      moved[0] = 1;
      moved[P - 1] = 3;
    }
    std::vector<int> big(2 * P + 1), own(static_cast<std::size_t>(moved[static_cast<std::size_t>(c.rank())]), 0);
    const auto sums = error_of([&] { checked{}(c, in, big, more); });
    CHECK(sums == ring + "ranks disagree on the element count (values from " + std::to_string(2 * p) + " to " +
                      std::to_string(2 * p + 1) + ")");
    const auto same_sum = error_of([&] { checked{}(c, own, out, moved); });
    CHECK(same_sum == ring + "ranks were given different counts (with the same sum)");
  }

  // Not an error: an empty block may lie anywhere, even inside another block.
  if (p > 1) {
    std::vector<int> empty_first = counts, inside = displs;
    empty_first[0] = 0;
    inside[0] = 3;  // inside block 1, elements 2 and 3
    std::vector<int> mine(c.rank() == 0 ? 0 : 2, c.rank()), got(2 * P, -1);
    CHECK(error_of([&] { checked{}(c, mine, got, empty_first, inside); }).empty());
    std::vector<int> want(2 * P, -1);
    for (int q = 1; q < p; ++q) want[2 * static_cast<std::size_t>(q)] = want[2 * static_cast<std::size_t>(q) + 1] = q;
    CHECK(got == want);
  }
  still_works(c);
}

TEST_CASE("errors.mpi_failures_carry_routine_and_message") {
  const auto e = error_of([] { hpcoll::detail::check_mpi(MPI_ERR_COUNT, "MPI_Isend"); });
  CHECK(contains(e, "MPI_Isend failed: "));
  CHECK(e.size() > std::string("hpcoll: MPI_Isend failed: ").size());
  try {
    hpcoll::detail::check_mpi(MPI_ERR_TAG, "MPI_Irecv");
  } catch (const hpcoll::error& err) {
    CHECK(err.mpi_code() == MPI_ERR_TAG);
  }
}

// HPCOLL_SHARED_MEMORY is read at a communicator's first blocking call: a bad
// value is raised there, on every rank (the value is the same everywhere),
// before any message; 0 and 1 both give the right result.
TEST_CASE("errors.shared_memory_switch") {
  std::vector<long> in(3, world_rank() + 1), out(3, 0);
  const long expected = static_cast<long>(world_size()) * (world_size() + 1) / 2;
  setenv("HPCOLL_SHARED_MEMORY", "yes", 1);
  {
    const hpcoll::communicator c(MPI_COMM_WORLD);
    const std::string e = error_of([&] { hpcoll::Allreduce<S::recursive_doubling>{}(c, in, out, hpcoll::op::sum{}); });
    CHECK_MESSAGE(contains(e, "hpcoll::allreduce<recursive_doubling>: HPCOLL_SHARED_MEMORY is 'yes'; it must be 0 or 1"),
                  e);
  }
  for (const char* value : {"0", "1"}) {
    CAPTURE(value);
    setenv("HPCOLL_SHARED_MEMORY", value, 1);
    const hpcoll::communicator c(MPI_COMM_WORLD);
    hpcoll::Allreduce<S::recursive_doubling>{}(c, in, out, hpcoll::op::sum{});
    CHECK(out == std::vector<long>(3, expected));
    still_works(c);
  }
  unsetenv("HPCOLL_SHARED_MEMORY");
}

// Counts that disagree between two ranks (unchecked mode: nothing compares
// them first). A message within a node goes through shared memory, whose
// receiver sees the size sent: rank 1 raises, naming rank 0; every message
// was still received, so the communicator serves the next call.
TEST_CASE("errors.counts_disagree") {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size(), me = c.rank();
  if (p < 2) {
    MESSAGE("errors.counts_disagree needs two ranks: not run at np 1");
    return;
  }
  const auto P = static_cast<std::size_t>(p);
  std::vector<std::size_t> send_counts(P, 0), recv_counts(P, 0), displs(P, 0);
  if (me == 0) send_counts[1] = 3;
  if (me == 1) recv_counts[0] = 2;
  std::vector<int> in(3, 7), out(3, -1);
  const std::string e = error_of([&] {
    hpcoll::Alltoallv<S::linear>{}(c, in, send_counts, displs, out, recv_counts, displs);
  });
  if (me == 1)
    CHECK_MESSAGE(contains(e, "hpcoll::alltoallv<linear>: rank 0 sent 12 bytes where this rank receives 8: the "
                              "ranks' counts disagree"),
                  e);
  else
    CHECK_MESSAGE(e.empty(), e);
  still_works(c);
}
