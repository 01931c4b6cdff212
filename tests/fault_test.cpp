// SPDX-License-Identifier: BSD-3-Clause
// An MPI call that fails in the middle of a collective: the call raises
// hpcoll::error naming the MPI routine and error, its pending messages are
// cancelled and freed, and the communicator serves the next collective.
// The failure is injected through MPI's profiling interface: this program's
// MPI_Isend fails on demand, through the communicator's error handler, which
// hpcoll sets to return.
#include "support/mpi_test.hpp"

#include <hpcoll/collectives/alltoall.hpp>
#include <hpcoll/schedule/linear.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace {

int sends_before_failure = -1;  // MPI_Isend calls that succeed before one fails; negative: none fails
int receives_posted = 0;
int cancelled = 0;

}  // namespace

extern "C" {

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  if (sends_before_failure == 0) {
    sends_before_failure = -1;
    PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);  // aborts unless the handler returns
    return MPI_ERR_OTHER;
  }
  if (sends_before_failure > 0) --sends_before_failure;
  return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  ++receives_posted;
  return PMPI_Irecv(buf, count, type, source, tag, comm, request);
}

int MPI_Cancel(MPI_Request* request) {
  ++cancelled;
  return PMPI_Cancel(request);
}

}  // extern "C"

namespace {

using linear_alltoall = hpcoll::Alltoall<hpcoll::schedule::linear>;

constexpr std::size_t block = 3;

std::vector<long> alltoall_input(int me, int p) {
  std::vector<long> in(block * static_cast<std::size_t>(p));
  for (std::size_t j = 0; j < in.size(); ++j) in[j] = 1000L * me + static_cast<long>(j);
  return in;
}

/// Rank `me`'s result: block `me` of every rank's input.
bool alltoall_result_right(const std::vector<long>& out, int me, int p) {
  for (int from = 0; from < p; ++from)
    for (std::size_t k = 0; k < block; ++k)
      if (out[static_cast<std::size_t>(from) * block + k] != 1000L * from + static_cast<long>(me * block + k))
        return false;
  return true;
}

/// The linear alltoall posts its p − 1 receives, then its sends, in one round;
/// every rank's send number `sends_ok` fails, so no rank waits for one that failed.
template <class Run>
void fail_then_recover(Run run) {
  const hpcoll::communicator c(MPI_COMM_WORLD);
  const int p = c.size(), me = c.rank();
  const int sends_ok = (p - 1) / 2;
  const std::vector<long> in = alltoall_input(me, p);
  std::vector<long> out(in.size());

  sends_before_failure = sends_ok;
  receives_posted = cancelled = 0;
  std::string what;
  int code = 0;
  try {
    run(c, in, out);
  } catch (const hpcoll::error& e) {
    what = e.what();
    code = e.mpi_code();
  }
  sends_before_failure = -1;
  CHECK_MESSAGE(what.find("MPI_Isend") != std::string::npos, what);
  CHECK_MESSAGE(what.find("alltoall") != std::string::npos, what);
  CHECK(code == MPI_ERR_OTHER);
  // Every message of the failed round is still pending: all of them cancelled.
  CHECK(receives_posted == p - 1);
  CHECK(cancelled == receives_posted + sends_ok);

  // The next collectives on the same communicator, blocking and nonblocking.
  std::vector<long> again(in.size());
  linear_alltoall{}(c, in, again);
  HPCOLL_REQUIRE_ALL_RANKS(alltoall_result_right(again, me, p));
  std::vector<long> later(in.size());
  linear_alltoall{}.start(c, in, later).wait();
  HPCOLL_REQUIRE_ALL_RANKS(alltoall_result_right(later, me, p));
}

}  // namespace

TEST_CASE("fault.blocking") {
  fail_then_recover([](const hpcoll::communicator& c, const std::vector<long>& in, std::vector<long>& out) {
    linear_alltoall{}(c, in, out);
  });
}

TEST_CASE("fault.nonblocking") {
  fail_then_recover([](const hpcoll::communicator& c, const std::vector<long>& in, std::vector<long>& out) {
    hpcoll::request r = linear_alltoall{}.start(c, in, out);
    r.wait();
  });
}
