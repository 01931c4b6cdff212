// SPDX-License-Identifier: BSD-3-Clause
#include "solvers.hpp"

#include <hpcoll/collectives/allreduce.hpp>
#include <hpcoll/collectives/alltoall.hpp>
#include <hpcoll/collectives/alltoallv.hpp>
#include <hpcoll/op.hpp>
#include <hpcoll/select/automatic.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <functional>
#include <map>
#include <queue>
#include <stdexcept>

namespace hpcoll_dijkstra {

// ---------------------------------------------------------------------------
// The collectives

exchange::exchange(MPI_Comm comm, collective_library library) : comm_(comm), library_(library) {
  if (library_ == collective_library::native) {
    MPI_Type_contiguous(2, MPI_UINT64_T, &relaxation_type_);
    MPI_Type_commit(&relaxation_type_);
  }
}

exchange::~exchange() {
  if (relaxation_type_ != MPI_DATATYPE_NULL) MPI_Type_free(&relaxation_type_);
}

namespace {

/// Runs call() and adds its time, and one call of `bytes`, to `usage`.
template <class Call>
void timed(collective_usage& usage, std::uint64_t bytes, Call&& call) {
  const double start = MPI_Wtime();
  call();
  usage.seconds += MPI_Wtime() - start;
  ++usage.calls;
  usage.bytes += bytes;
}

/// A count of the native alltoallv, which takes ints.
int native_count(std::uint64_t n) {
  if (n > static_cast<std::uint64_t>(INT_MAX))
    throw std::runtime_error("more than INT_MAX messages in one MPI_Alltoallv (use --collectives hpcoll)");
  return static_cast<int>(n);
}

}  // namespace

std::pair<distance_t, std::uint64_t> exchange::min_location(std::pair<distance_t, std::uint64_t> mine) {
  std::array<std::pair<distance_t, std::uint64_t>, 1> in{mine}, out{};
  if (library_ == collective_library::hpcoll) {
    timed(allreduce_, sizeof in, [&] { hpcoll::allreduce(comm_, in, out, hpcoll::op::minloc{}); });
    return out[0];
  }
  // MPI_LONG_INT: the distance as a long (unreachable as LONG_MAX), the vertex
  // as an int; main() refuses native collectives for graphs that do not fit.
  struct {
    long distance;
    int vertex;
  } native_in{mine.first == unreachable ? LONG_MAX : static_cast<long>(mine.first),
              mine.second > static_cast<std::uint64_t>(INT_MAX) ? INT_MAX : static_cast<int>(mine.second)},
      native_out{};
  timed(allreduce_, sizeof native_in,
        [&] { MPI_Allreduce(&native_in, &native_out, 1, MPI_LONG_INT, MPI_MINLOC, comm_.native()); });
  return {native_out.distance == LONG_MAX ? unreachable : static_cast<distance_t>(native_out.distance),
          static_cast<std::uint64_t>(native_out.vertex)};
}

std::uint64_t exchange::minimum(std::uint64_t mine) {
  std::array<std::uint64_t, 1> in{mine}, out{};
  if (library_ == collective_library::hpcoll)
    timed(allreduce_, sizeof in, [&] { hpcoll::allreduce(comm_, in, out, hpcoll::op::min{}); });
  else
    timed(allreduce_, sizeof in,
          [&] { MPI_Allreduce(in.data(), out.data(), 1, MPI_UINT64_T, MPI_MIN, comm_.native()); });
  return out[0];
}

void exchange::all_to_all(std::vector<std::vector<relaxation>>& outgoing, std::vector<relaxation>& incoming) {
  const auto p = static_cast<std::size_t>(size());
  send_counts_.assign(p, 0);
  receive_counts_.assign(p, 0);
  send_displs_.assign(p, 0);
  receive_displs_.assign(p, 0);
  send_buffer_.clear();
  for (std::size_t r = 0; r < p; ++r) {
    send_counts_[r] = outgoing[r].size();
    send_displs_[r] = send_buffer_.size();
    send_buffer_.insert(send_buffer_.end(), outgoing[r].begin(), outgoing[r].end());
    outgoing[r].clear();
  }
  const bool native = library_ == collective_library::native;
  timed(alltoall_, p * sizeof(std::uint64_t), [&] {
    if (native)
      MPI_Alltoall(send_counts_.data(), 1, MPI_UINT64_T, receive_counts_.data(), 1, MPI_UINT64_T, comm_.native());
    else
      hpcoll::alltoall(comm_, send_counts_, receive_counts_);
  });
  std::uint64_t arriving = 0;
  for (std::size_t r = 0; r < p; ++r) {
    receive_displs_[r] = arriving;
    arriving += receive_counts_[r];
  }
  incoming.resize(arriving);
  if (native) {
    const std::vector<std::uint64_t>* sources[4] = {&send_counts_, &send_displs_, &receive_counts_, &receive_displs_};
    for (int i = 0; i < 4; ++i) {
      native_counts_[i].resize(p);
      std::transform(sources[i]->begin(), sources[i]->end(), native_counts_[i].begin(), native_count);
    }
  }
  timed(alltoallv_, send_buffer_.size() * sizeof(relaxation), [&] {
    if (!native) {
      hpcoll::alltoallv(comm_, send_buffer_, send_counts_, send_displs_, incoming, receive_counts_, receive_displs_);
      return;
    }
    MPI_Alltoallv(send_buffer_.data(), native_counts_[0].data(), native_counts_[1].data(), relaxation_type_,
                  incoming.data(), native_counts_[2].data(), native_counts_[3].data(), relaxation_type_,
                  comm_.native());
  });
}

// ---------------------------------------------------------------------------
// Sequential Dijkstra

namespace {
using queue_entry = std::pair<distance_t, std::uint64_t>;  // (distance, vertex): the nearest on top
using min_queue = std::priority_queue<queue_entry, std::vector<queue_entry>, std::greater<>>;
}  // namespace

std::vector<distance_t> sequential_dijkstra(const csr_graph& g, vertex_t source) {
  std::vector<distance_t> distance(g.vertex_count(), unreachable);
  min_queue queue;
  distance[source] = 0;
  queue.push({0, source});
  while (!queue.empty()) {
    const auto [d, u] = queue.top();
    queue.pop();
    if (d != distance[u]) continue;  // an entry left behind by a later improvement
    for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
      const distance_t reached = d + g.weights[i];
      if (reached < distance[g.heads[i]]) {
        distance[g.heads[i]] = reached;
        queue.push({reached, g.heads[i]});
      }
    }
  }
  return distance;
}

// ---------------------------------------------------------------------------
// Parallel Dijkstra

solve_result parallel_dijkstra(const local_graph& g, vertex_t source, exchange& ex) {
  const double start = MPI_Wtime();
  solve_result result;
  result.distances.first = g.first;
  std::vector<distance_t>& distance = result.distances.values;
  distance.assign(g.vertex_count(), unreachable);
  std::vector<bool> settled(g.whole.vertices, false);
  min_queue queue;  // the rank's own vertices, by global id
  std::vector<std::vector<relaxation>> outgoing(static_cast<std::size_t>(ex.size()));
  std::vector<relaxation> incoming;

  const auto offer = [&](std::uint64_t v, distance_t d) {
    distance_t& current = distance[v - g.first];
    if (d < current) {
      current = d;
      queue.push({d, v});
    }
  };
  if (g.owns(source)) offer(source, 0);

  for (;;) {
    while (!queue.empty() && queue.top().first != distance[queue.top().second - g.first]) queue.pop();
    const queue_entry nearest = ex.min_location(queue.empty() ? queue_entry{unreachable, unreachable} : queue.top());
    if (nearest.first == unreachable) break;
    const auto [d, u] = nearest;
    settled[u] = true;
    ++result.stats.settled;
    if (g.owns(u)) {
      queue.pop();  // u is this rank's nearest: the top
      const std::uint64_t local = u - g.first;
      result.stats.relaxations += g.arcs.offsets[local + 1] - g.arcs.offsets[local];
      for (std::uint64_t i = g.arcs.offsets[local]; i < g.arcs.offsets[local + 1]; ++i) {
        const vertex_t head = g.arcs.heads[i];
        if (settled[head]) continue;
        const distance_t reached = d + g.arcs.weights[i];
        if (g.owns(head)) offer(head, reached);
        else outgoing[static_cast<std::size_t>(g.partition.owner(head))].push_back({head, reached});
      }
    }
    // Every rank takes part, though only u's owner has anything to send.
    ex.all_to_all(outgoing, incoming);
    for (const relaxation& r : incoming) offer(r.vertex, r.distance);
  }
  result.stats.seconds = MPI_Wtime() - start;
  return result;
}

// ---------------------------------------------------------------------------
// Delta-stepping

distance_t default_delta(const graph_summary& g) {
  return std::max<distance_t>(1, static_cast<distance_t>(std::llround(4 * g.mean_weight)));
}

solve_result delta_stepping(const local_graph& g, vertex_t source, distance_t delta, exchange& ex) {
  if (delta == 0) throw std::invalid_argument("delta-stepping needs a bucket width of at least 1");
  const double start = MPI_Wtime();
  constexpr std::uint64_t none = ~std::uint64_t{0};
  solve_result result;
  result.distances.first = g.first;
  std::vector<distance_t>& distance = result.distances.values;
  distance.assign(g.vertex_count(), unreachable);
  // Buckets of local vertex indices by bucket number. A vertex is listed again
  // whenever its distance falls; an entry counts only while the vertex is
  // `queued` and its distance still lies in that bucket.
  std::map<std::uint64_t, std::vector<vertex_t>> buckets;
  std::vector<bool> queued(g.vertex_count(), false);
  std::vector<std::uint64_t> settled_in(g.vertex_count(), none);  // the bucket that settled the vertex
  std::vector<vertex_t> settled;                                  // by the current bucket
  std::vector<std::vector<relaxation>> outgoing(static_cast<std::size_t>(ex.size()));
  std::vector<relaxation> incoming;

  const auto offer_local = [&](std::uint64_t local, distance_t d) {
    if (d < distance[local]) {
      distance[local] = d;
      queued[local] = true;
      buckets[d / delta].push_back(static_cast<vertex_t>(local));
    }
  };
  const auto offer = [&](std::uint64_t v, distance_t d) {
    if (g.owns(v)) offer_local(v - g.first, d);
    else outgoing[static_cast<std::size_t>(g.partition.owner(v))].push_back({v, d});
  };
  // Relaxes the arcs of local vertex u that are light (or heavy).
  const auto relax = [&](std::uint64_t u, bool light) {
    for (std::uint64_t i = g.arcs.offsets[u]; i < g.arcs.offsets[u + 1]; ++i)
      if ((g.arcs.weights[i] <= delta) == light) {
        ++result.stats.relaxations;
        offer(g.arcs.heads[i], distance[u] + g.arcs.weights[i]);
      }
  };
  const auto apply_incoming = [&] {
    ex.all_to_all(outgoing, incoming);
    for (const relaxation& r : incoming) offer_local(r.vertex - g.first, r.distance);
  };
  const auto waiting = [&](vertex_t v, std::uint64_t bucket) { return queued[v] && distance[v] / delta == bucket; };
  // The lowest bucket with a waiting vertex on this rank (none if there is none); drops stale entries.
  const auto lowest_bucket = [&]() -> std::uint64_t {
    while (!buckets.empty()) {
      // Not a structured binding: lambdas capture those from C++20 on, Clang only from 16.
      const std::uint64_t bucket = buckets.begin()->first;
      auto& list = buckets.begin()->second;
      std::erase_if(list, [&](vertex_t v) { return !waiting(v, bucket); });
      if (!list.empty()) return bucket;
      buckets.erase(buckets.begin());
    }
    return none;
  };

  if (g.owns(source)) offer_local(source - g.first, 0);
  for (std::uint64_t current = ex.minimum(lowest_bucket()); current != none; current = ex.minimum(lowest_bucket())) {
    ++result.stats.buckets;
    settled.clear();
    do {
      std::vector<vertex_t> frontier;
      if (const auto it = buckets.find(current); it != buckets.end()) {
        frontier = std::move(it->second);
        buckets.erase(it);
      }
      for (const vertex_t v : frontier) {
        if (!waiting(v, current)) continue;
        queued[v] = false;
        if (settled_in[v] != current) {
          settled_in[v] = current;
          settled.push_back(v);
        }
        relax(v, true);
      }
      apply_incoming();
      ++result.stats.phases;
    } while (ex.minimum(lowest_bucket()) == current);
    // The bucket's distances are final: its heavy arcs lead to later buckets only.
    for (const vertex_t v : settled) relax(v, false);
    apply_incoming();
  }
  result.stats.seconds = MPI_Wtime() - start;
  return result;
}

}  // namespace hpcoll_dijkstra
