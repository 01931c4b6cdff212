#include "solvers.hpp"

#include <functional>
#include <queue>
#include <utility>

namespace hpcoll_dijkstra {

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

}  // namespace hpcoll_dijkstra
