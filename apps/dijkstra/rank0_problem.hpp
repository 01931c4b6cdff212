// Rank 0 loads the graph alone; what goes wrong there must stop every rank
// with the same message and a non-zero exit, not leave the others waiting in a
// collective. Shared by hpcoll_dijkstra and the Parallel BGL peer.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

namespace hpcoll_dijkstra {

/// Rank 0's problem (empty: none) on every rank, each printing it as "program: problem" on
/// stderr; true if there was one. Every rank calls it at the same point.
inline bool failed_on_rank0(const char* program, std::string problem) {
  std::uint64_t length = problem.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (length == 0) return false;
  problem.resize(length);
  MPI_Bcast(problem.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::fprintf(stderr, "%s: %s\n", program, problem.c_str());
  std::fflush(stderr);
  return true;
}

/// Runs what() on rank 0 (only), turning what it throws into the problem text.
template <class What>
std::string on_rank0(int rank, What&& what) {
  if (rank != 0) return {};
  try {
    what();
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

}  // namespace hpcoll_dijkstra
