// SPDX-License-Identifier: BSD-3-Clause
#include "checksum.hpp"

#include <algorithm>

namespace hpcoll_dijkstra {

distance_checksum checksum_of(std::span<const distance_t> distances) {
  distance_checksum c;
  for (const distance_t d : distances) {
    if (d == unreachable) continue;
    ++c.reachable;
    c.sum += d;
    c.max = std::max(c.max, d);
  }
  return c;
}

distance_checksum global_checksum(MPI_Comm comm, std::span<const distance_t> mine) {
  const distance_checksum local = checksum_of(mine);
  const std::uint64_t counted[2] = {local.reachable, local.sum};
  std::uint64_t totals[2];
  distance_checksum all;
  MPI_Allreduce(counted, totals, 2, MPI_UINT64_T, MPI_SUM, comm);
  MPI_Allreduce(&local.max, &all.max, 1, MPI_UINT64_T, MPI_MAX, comm);
  all.reachable = totals[0];
  all.sum = totals[1];
  return all;
}

std::string checksum_line(const distance_checksum& c) {
  return "checksum: reachable=" + std::to_string(c.reachable) + " sum=" + std::to_string(c.sum) +
         " max=" + std::to_string(c.max);
}

}  // namespace hpcoll_dijkstra
