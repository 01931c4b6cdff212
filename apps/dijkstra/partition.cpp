// SPDX-License-Identifier: BSD-3-Clause
#include "partition.hpp"

#include <algorithm>
#include <span>
#include <type_traits>

namespace hpcoll_dijkstra {

namespace {

// The graph moves once, before any solver runs: plain point-to-point
// messages, at most 1 GiB each (MPI counts are ints).
constexpr std::size_t largest_message = std::size_t{1} << 30;

template <class T>
void send_all(MPI_Comm comm, std::span<const T> data, int to) {
  static_assert(std::is_trivially_copyable_v<T>);
  const auto* bytes = reinterpret_cast<const char*>(data.data());
  for (std::size_t sent = 0, total = data.size_bytes(); sent < total;) {
    const std::size_t chunk = std::min(total - sent, largest_message);
    MPI_Send(bytes + sent, static_cast<int>(chunk), MPI_BYTE, to, 0, comm);
    sent += chunk;
  }
}

template <class T>
void receive_all(MPI_Comm comm, std::span<T> data, int from) {
  static_assert(std::is_trivially_copyable_v<T>);
  auto* bytes = reinterpret_cast<char*>(data.data());
  for (std::size_t received = 0, total = data.size_bytes(); received < total;) {
    const std::size_t chunk = std::min(total - received, largest_message);
    MPI_Recv(bytes + received, static_cast<int>(chunk), MPI_BYTE, from, 0, comm, MPI_STATUS_IGNORE);
    received += chunk;
  }
}

}  // namespace

graph_summary summarize(const csr_graph& g) {
  graph_summary s{g.vertex_count(), g.arc_count(), 0, 0};
  long double sum = 0;
  for (const weight_t w : g.weights) {
    s.max_weight = std::max(s.max_weight, w);
    sum += w;
  }
  if (s.arcs > 0) s.mean_weight = static_cast<double>(sum / static_cast<long double>(s.arcs));
  return s;
}

csr_graph scatter_blocks(MPI_Comm comm, const csr_graph& whole, std::span<const std::uint64_t> starts) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  csr_graph mine;
  if (rank == 0) {
    for (int r = size - 1; r >= 0; --r) {
      const std::uint64_t begin = starts[r], end = starts[r + 1];
      const std::span<const std::uint64_t> offsets(whole.offsets.data() + begin, end - begin + 1);
      const std::span<const vertex_t> heads(whole.heads.data() + offsets.front(), offsets.back() - offsets.front());
      const std::span<const weight_t> weights(whole.weights.data() + offsets.front(), heads.size());
      if (r == 0) {
        mine.offsets.assign(offsets.begin(), offsets.end());
        mine.heads.assign(heads.begin(), heads.end());
        mine.weights.assign(weights.begin(), weights.end());
      } else {
        send_all(comm, offsets, r);
        send_all(comm, heads, r);
        send_all(comm, weights, r);
      }
    }
  } else {
    mine.offsets.resize(starts[rank + 1] - starts[rank] + 1);
    receive_all(comm, std::span(mine.offsets), 0);
    mine.heads.resize(mine.offsets.back() - mine.offsets.front());
    mine.weights.resize(mine.heads.size());
    receive_all(comm, std::span(mine.heads), 0);
    receive_all(comm, std::span(mine.weights), 0);
  }
  const std::uint64_t base = mine.offsets.front();
  for (std::uint64_t& offset : mine.offsets) offset -= base;
  return mine;
}

local_graph distribute(MPI_Comm comm, const csr_graph& whole) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  local_graph local;
  if (rank == 0) local.whole = summarize(whole);
  MPI_Bcast(&local.whole, sizeof local.whole, MPI_BYTE, 0, comm);
  local.partition = {local.whole.vertices, size};
  local.rank = rank;
  local.first = local.partition.begin(rank);
  std::vector<std::uint64_t> starts(static_cast<std::size_t>(size) + 1);
  for (int r = 0; r <= size; ++r) starts[r] = local.partition.begin(r);
  local.arcs = scatter_blocks(comm, whole, starts);
  return local;
}

std::vector<distance_t> gather_distances(MPI_Comm comm, const distance_slice& mine, std::uint64_t vertices) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::uint64_t where[2] = {mine.first, mine.values.size()};
  if (rank != 0) {
    MPI_Send(where, 2, MPI_UINT64_T, 0, 0, comm);
    send_all(comm, std::span(mine.values), 0);
    return {};
  }
  std::vector<distance_t> all(vertices, unreachable);
  std::copy(mine.values.begin(), mine.values.end(), all.begin() + static_cast<std::ptrdiff_t>(mine.first));
  for (int r = 1; r < size; ++r) {
    MPI_Recv(where, 2, MPI_UINT64_T, r, 0, comm, MPI_STATUS_IGNORE);
    receive_all(comm, std::span(all.data() + where[0], where[1]), r);
  }
  return all;
}

}  // namespace hpcoll_dijkstra
