// SPDX-License-Identifier: BSD-3-Clause
// The distance checksum every shortest-path program of apps/dijkstra prints,
// "checksum: reachable=R sum=S max=M", so that runs of any solver, program
// and process count compare at a glance.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>

#include "graph.hpp"

namespace hpcoll_dijkstra {

struct distance_checksum {
  std::uint64_t reachable = 0;  ///< vertices with a finite distance, the source included
  std::uint64_t sum = 0;        ///< of the finite distances, modulo 2^64
  std::uint64_t max = 0;        ///< the largest finite distance
};

/// Of `distances` (`unreachable` where no path).
distance_checksum checksum_of(std::span<const distance_t> distances);

/// Of every rank's `mine` together (each rank holds some of the distances), on every rank of comm.
distance_checksum global_checksum(MPI_Comm comm, std::span<const distance_t> mine);

/// "checksum: reachable=R sum=S max=M" (no newline).
std::string checksum_line(const distance_checksum& c);

}  // namespace hpcoll_dijkstra
