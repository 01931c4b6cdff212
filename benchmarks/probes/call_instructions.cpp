// SPDX-License-Identifier: BSD-3-Clause
// One method of hpcoll_overhead (np 2, two ints per rank) called CALLS times
// in a loop of its own, for an instruction counter: callgrind's count of this
// program's own instructions (MPI's libraries left out) per call is what
// hpcoll adds to the call. probes/call_instructions.py runs it under
// callgrind at two call counts and prints the difference per call
// (docs/performance.md, "Per-call overhead").
//
//   mpiexec -n 2 build/benchmarks/probe_call_instructions METHOD CALLS
//
// METHOD: by_hand_bcast, Bcast_binomial, bcast, Reduce_binomial, reduce,
// Allreduce_recursive_doubling, allreduce, Allgather_recursive_doubling,
// allgather, Alltoall_pairwise, alltoall.
#include <hpcoll/hpcoll.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

namespace S = hpcoll::schedule;

template <class Call>
void loop(long calls, Call call) {
  for (long i = 0; i < calls; ++i) call();
}

int run(int argc, char** argv) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string_view usage = "usage: mpiexec -n 2 probe_call_instructions METHOD CALLS";
  if (argc != 3) throw std::invalid_argument(std::string(usage));
  if (size != 2) throw std::invalid_argument("runs on 2 ranks (mpiexec -n 2), not " + std::to_string(size));
  char* end = nullptr;
  const long calls = std::strtol(argv[2], &end, 10);
  if (*argv[2] == '\0' || *end != '\0' || calls < 1)
    throw std::invalid_argument(std::string("CALLS must be a positive integer, not '") + argv[2] + "'");

  const hpcoll::communicator c(MPI_COMM_WORLD);
  MPI_Comm raw = MPI_COMM_NULL;  // the by-hand messages get their own communicator, as hpcoll's do
  MPI_Comm_dup(MPI_COMM_WORLD, &raw);
  const int rank = c.rank();
  std::array<int, 2> in{rank + 1, rank + 2}, out{};
  std::array<int, 4> blocks_in{1, 2, 3, 4}, blocks_out{};
  const hpcoll::op::sum sum;
  const std::string_view method = argv[1];
  if (method == "by_hand_bcast")
    loop(calls, [&] {
      if (rank == 0)
        MPI_Send(out.data(), 2, MPI_INT, 1, 0, raw);
      else
        MPI_Recv(out.data(), 2, MPI_INT, 0, 0, raw, MPI_STATUS_IGNORE);
    });
  else if (method == "Bcast_binomial")
    loop(calls, [&] { hpcoll::Bcast<S::binomial>{}(c, out, 0); });
  else if (method == "bcast")
    loop(calls, [&] { hpcoll::bcast(c, out, 0); });
  else if (method == "Reduce_binomial")
    loop(calls, [&] { hpcoll::Reduce<S::binomial>{}(c, in, out, sum, 0); });
  else if (method == "reduce")
    loop(calls, [&] { hpcoll::reduce(c, in, out, sum, 0); });
  else if (method == "Allreduce_recursive_doubling")
    loop(calls, [&] { hpcoll::Allreduce<S::recursive_doubling>{}(c, in, out, sum); });
  else if (method == "allreduce")
    loop(calls, [&] { hpcoll::allreduce(c, in, out, sum); });
  else if (method == "Allgather_recursive_doubling")
    loop(calls, [&] { hpcoll::Allgather<S::recursive_doubling>{}(c, in, blocks_out); });
  else if (method == "allgather")
    loop(calls, [&] { hpcoll::allgather(c, in, blocks_out); });
  else if (method == "Alltoall_pairwise")
    loop(calls, [&] { hpcoll::Alltoall<S::pairwise>{}(c, blocks_in, blocks_out); });
  else if (method == "alltoall")
    loop(calls, [&] { hpcoll::alltoall(c, blocks_in, blocks_out); });
  else
    throw std::invalid_argument("unknown METHOD '" + std::string(method) + "' (see the top of call_instructions.cpp)");
  MPI_Comm_free(&raw);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  try {
    status = run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "probe_call_instructions: %s\n", e.what());
    status = 2;
  }
  MPI_Finalize();
  return status;
}
