// SPDX-License-Identifier: BSD-3-Clause
// A failure in the middle of a collective on some of its ranks — an MPI call
// that fails, an op that throws: the failing rank raises its own error, every
// rank whose result depends on it raises hpcoll::error naming the peer that
// could not deliver, every other rank finishes with the right result; no
// message is cancelled or left behind, and the communicator serves the next
// collective. Blocking and nonblocking.
// MPI failures are injected through MPI's profiling interface: this
// program's MPI_Isend and MPI_Send fail on demand, through the communicator's
// error handler, which hpcoll sets to return. Those cases keep every message
// on MPI (HPCOLL_SHARED_MEMORY=0); the op that throws runs with the small
// messages of the node through shared memory, as a blocking call does by default.
#include "support/mpi_test.hpp"

#include <hpcoll/collectives/allreduce.hpp>
#include <hpcoll/collectives/alltoall.hpp>
#include <hpcoll/collectives/bcast.hpp>
#include <hpcoll/schedule/binomial.hpp>
#include <hpcoll/schedule/linear.hpp>
#include <hpcoll/schedule/ring.hpp>

#include <cstddef>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/// While it lives, the communicators this test makes send every message
/// through MPI, where the failures are injected (the variable is read at a
/// communicator's first blocking call).
struct messages_through_mpi {
  messages_through_mpi() { setenv("HPCOLL_SHARED_MEMORY", "0", 1); }
  ~messages_through_mpi() { unsetenv("HPCOLL_SHARED_MEMORY"); }
  messages_through_mpi(const messages_through_mpi&) = delete;
  messages_through_mpi& operator=(const messages_through_mpi&) = delete;
};

int sends_before_failure = -1;  // sends (MPI_Isend or MPI_Send) that succeed before one fails; negative: none fails
int cancelled = 0;

/// Counts a send; true for the one that is to fail.
bool send_fails() {
  if (sends_before_failure < 0) return false;
  return sends_before_failure-- == 0;
}

int fail(MPI_Comm comm) {
  PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);  // aborts unless the handler returns
  return MPI_ERR_OTHER;
}

}  // namespace

extern "C" {

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  return send_fails() ? fail(comm) : PMPI_Isend(buf, count, type, dest, tag, comm, request);
}

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_fails() ? fail(comm) : PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Cancel(MPI_Request* request) {
  ++cancelled;
  return PMPI_Cancel(request);
}

}  // extern "C"

namespace {

namespace S = hpcoll::schedule;

/// What a call raised on this rank.
struct outcome {
  bool raised = false;
  std::string what;
  int mpi_code = 0;
};

template <class Call>
outcome outcome_of(Call call) {
  try {
    call();
  } catch (const hpcoll::error& e) {
    return {true, e.what(), e.mpi_code()};
  } catch (const std::exception& e) {
    return {true, e.what(), 0};
  }
  return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// How many ranks of MPI_COMM_WORLD say yes.
int ranks_where(bool yes) {
  int mine = yes ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/// A rank's notice of a failure elsewhere, as raised where it arrived.
bool names_a_peer(const outcome& o) { return contains(o.what, "could not deliver its part of this call"); }

/// No message of the failed call was cancelled, none is left to meet a later
/// one (looked for between two barriers: no rank sends in between).
void check_nothing_left(const hpcoll::communicator& c) {
  CHECK(cancelled == 0);
  MPI_Barrier(c.native());
  int waiting = 0;
  MPI_Status st;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c.native(), &waiting, &st);
  CHECK_MESSAGE(waiting == 0, "a message from rank ", st.MPI_SOURCE, " with tag ", st.MPI_TAG);
  MPI_Barrier(c.native());
}

/// A collective run blocking or started and waited for.
enum class mode { blocking, nonblocking };

template <class Collective, class... Args>
void run(mode m, Args&&... args) {
  if (m == mode::blocking)
    Collective{}(args...);
  else
    Collective{}.start(args...).wait();
}

using linear_alltoall = hpcoll::Alltoall<S::linear>;
constexpr std::size_t block = 3;

std::vector<long> alltoall_input(int me, int p) {
  std::vector<long> in(block * static_cast<std::size_t>(p));
  for (std::size_t j = 0; j < in.size(); ++j) in[j] = 1000L * me + static_cast<long>(j);
  return in;
}

/// Rank `me`'s alltoall result: block `me` of every rank's input.
bool alltoall_right(const std::vector<long>& out, int me, int p) {
  for (int from = 0; from < p; ++from)
    for (std::size_t k = 0; k < block; ++k)
      if (out[static_cast<std::size_t>(from) * block + k] != 1000L * from + static_cast<long>(me * block + k))
        return false;
  return true;
}

/// The next alltoalls on the same communicator, blocking and nonblocking, are right.
bool alltoalls_right_after(const hpcoll::communicator& c) {
  const std::vector<long> in = alltoall_input(c.rank(), c.size());
  std::vector<long> again(in.size()), later(in.size());
  linear_alltoall{}(c, in, again);
  linear_alltoall{}.start(c, in, later).wait();
  return alltoall_right(again, c.rank(), c.size()) && alltoall_right(later, c.rank(), c.size());
}

/// The linear alltoall posts its p − 1 receives, then its p − 1 sends (np ≥ 3:
/// at np 2 its blocking round is one MPI_Sendrecv, which is never failed
/// here); each rank's send number `sends_ok` fails: every rank raises its own
/// failure.
void every_rank_fails(mode m) {
  const messages_through_mpi mpi_only;
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size(), me = c.rank();
  const std::vector<long> in = alltoall_input(me, p);
  std::vector<long> out(in.size());
  cancelled = 0;
  sends_before_failure = (p - 1) / 2;
  const outcome o = outcome_of([&] { run<linear_alltoall>(m, c, in, out); });
  sends_before_failure = -1;
  CHECK_MESSAGE(contains(o.what, "hpcoll::alltoall<linear>: MPI_Isend failed"), o.what);
  CHECK(o.mpi_code == MPI_ERR_OTHER);
  check_nothing_left(c);
  HPCOLL_REQUIRE_ALL_RANKS(alltoalls_right_after(c));
}

/// Only rank 0's send number `sends_ok` fails: it and the sends after it carry
/// notices, so exactly the p − 1 − sends_ok ranks they go to raise; the
/// others received rank 0's block and are right.
void one_rank_fails(mode m) {
  const messages_through_mpi mpi_only;
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size(), me = c.rank();
  const int sends_ok = (p - 1) / 2;
  const std::vector<long> in = alltoall_input(me, p);
  std::vector<long> out(in.size());
  cancelled = 0;
  sends_before_failure = me == 0 ? sends_ok : -1;
  const outcome o = outcome_of([&] { run<linear_alltoall>(m, c, in, out); });
  sends_before_failure = -1;
  if (me == 0) {
    CHECK_MESSAGE(contains(o.what, "hpcoll::alltoall<linear>: MPI_Isend failed"), o.what);
    CHECK(o.mpi_code == MPI_ERR_OTHER);
  } else if (o.raised) {
    CHECK_MESSAGE(contains(o.what, "hpcoll::alltoall<linear>: rank 0 could not deliver"), o.what);
    CHECK(o.mpi_code == 0);
  } else {
    CHECK(alltoall_right(out, me, p));
  }
  CHECK(ranks_where(o.raised && me != 0) == p - 1 - sends_ok);
  check_nothing_left(c);
  HPCOLL_REQUIRE_ALL_RANKS(alltoalls_right_after(c));
}

/// The root's first send fails: every rank's buffer depends on the root, so
/// every rank raises; then a broadcast from the same root is right.
void bcast_root_fails(mode m) {
  const messages_through_mpi mpi_only;
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size(), me = c.rank(), root = p - 1;
  std::vector<int> buf(5, me == root ? 42 : -1);
  cancelled = 0;
  sends_before_failure = me == root ? 0 : -1;
  const outcome o = outcome_of([&] { run<hpcoll::Bcast<S::binomial>>(m, c, buf, root); });
  sends_before_failure = -1;
  if (me == root) {
    // Blocking rounds of one send use MPI_Send (executor.hpp), nonblocking ones MPI_Isend.
    CHECK_MESSAGE(contains(o.what, m == mode::blocking ? "hpcoll::bcast<binomial>: MPI_Send failed"
                                                       : "hpcoll::bcast<binomial>: MPI_Isend failed"),
                  o.what);
  } else {
    CHECK_MESSAGE((contains(o.what, "hpcoll::bcast<binomial>: rank ") && names_a_peer(o)), o.what);
  }
  CHECK(ranks_where(o.raised) == p);
  check_nothing_left(c);
  std::vector<int> again(5, me == root ? 7 : -1);
  run<hpcoll::Bcast<S::binomial>>(m, c, again, root);
  HPCOLL_REQUIRE_ALL_RANKS(again == std::vector<int>(5, 7));
}

/// A sum whose first call on an armed rank throws.
struct sum_that_throws_once {
  static inline bool armed = false;
  long operator()(const long& a, const long& b) const {
    if (armed) {
      armed = false;
      throw std::runtime_error("sum_that_throws_once: the op failed");
    }
    return a + b;
  }
};

/// In the ring allreduce every block passes every rank: an op that throws on
/// rank 1 reaches every rank, the thrower raising the op's own exception.
void op_throws(mode m) {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size(), me = c.rank(), thrower = 1 % p;
  const std::vector<long> in(2 * static_cast<std::size_t>(p), me + 1);
  std::vector<long> out(in.size());
  cancelled = 0;
  sum_that_throws_once::armed = me == thrower;
  const outcome o = outcome_of([&] { run<hpcoll::Allreduce<S::ring>>(m, c, in, out, sum_that_throws_once{}); });
  sum_that_throws_once::armed = false;
  if (me == thrower)
    CHECK(o.what == "sum_that_throws_once: the op failed");
  else
    CHECK_MESSAGE((contains(o.what, "hpcoll::allreduce<ring>: rank ") && names_a_peer(o)), o.what);
  CHECK(ranks_where(o.raised) == p);
  check_nothing_left(c);
  std::vector<long> again(in.size());
  run<hpcoll::Allreduce<S::ring>>(m, c, in, again, sum_that_throws_once{});
  HPCOLL_REQUIRE_ALL_RANKS(again == std::vector<long>(in.size(), static_cast<long>(p) * (p + 1) / 2));
}

}  // namespace

TEST_CASE("fault.every_rank.blocking") { every_rank_fails(mode::blocking); }
TEST_CASE("fault.every_rank.nonblocking") { every_rank_fails(mode::nonblocking); }
TEST_CASE("fault.one_rank.blocking") { one_rank_fails(mode::blocking); }
TEST_CASE("fault.one_rank.nonblocking") { one_rank_fails(mode::nonblocking); }
TEST_CASE("fault.bcast_root.blocking") { bcast_root_fails(mode::blocking); }
TEST_CASE("fault.bcast_root.nonblocking") { bcast_root_fails(mode::nonblocking); }
TEST_CASE("fault.op_throws.blocking") { op_throws(mode::blocking); }
TEST_CASE("fault.op_throws.nonblocking") { op_throws(mode::nonblocking); }
