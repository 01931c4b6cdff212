// SPDX-License-Identifier: BSD-3-Clause
// hpcoll_dijkstra's parallel solvers at every process count, with hpcoll's
// collectives and the MPI library's: against closed forms (a path, a star, a
// grid) and against the sequential solver on generated graphs. Every rank
// builds the same graph; rank 0's copy is distributed, as in the program.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "generator.hpp"
#include "graph.hpp"
#include "partition.hpp"
#include "solvers.hpp"
#include "support/mpi_test.hpp"

namespace {

using namespace hpcoll_dijkstra;
using arc = std::tuple<std::uint64_t, std::uint64_t, weight_t>;  // tail, head, weight (0-based)

csr_graph graph_of(std::uint64_t vertices, const std::vector<arc>& arcs) {
  arc_list list;
  list.vertex_count = vertices;
  for (const auto& [tail, head, weight] : arcs)
    list.add(static_cast<vertex_t>(tail), static_cast<vertex_t>(head), weight);
  return to_csr(std::move(list));
}

std::string text(distance_t d) { return d == unreachable ? "inf" : std::to_string(d); }

/// The first of a rank's distances that differs from `expected` (of all vertices), as text; empty if none.
std::string first_difference(const solve_result& r, const std::vector<distance_t>& expected) {
  const std::vector<distance_t>& got = r.distances.values;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::uint64_t v = r.distances.first + i;
    if (got[i] != expected[v])
      return "vertex " + std::to_string(v + 1) + ": " + text(got[i]) + ", expected " + text(expected[v]);
  }
  return {};
}

/// hpcoll's schedule counters count every call of the exchange's collectives (the dispatcher
/// chose each schedule); with native collectives they count nothing.
void check_schedule_counters(const exchange& ex, collective_library library) {
  std::uint64_t counted[3] = {};
  for (const hpcoll::schedule_count& c : ex.schedules()) {
    CHECK(c.dispatched);
    if (c.collective == "allreduce") counted[0] += c.calls;
    else if (c.collective == "alltoall") counted[1] += c.calls;
    else if (c.collective == "alltoallv") counted[2] += c.calls;
    else CHECK_MESSAGE(false, "an unexpected collective ran: ", c.collective);
  }
  const bool hpcoll = library == collective_library::hpcoll;
  CHECK(counted[0] == (hpcoll ? ex.allreduce().calls : 0));
  CHECK(counted[1] == (hpcoll ? ex.alltoall().calls : 0));
  CHECK(counted[2] == (hpcoll ? ex.alltoallv().calls : 0));
}

/// Runs parallel_dijkstra and delta_stepping with each of `deltas` (0: the default), each with
/// hpcoll's and the MPI library's collectives, from `source` on g, and checks every rank's
/// distances against `expected`, the step counts against the reachable vertices, and the
/// collective calls against the steps (closed forms) and hpcoll's schedule counters.
void check_solvers(const csr_graph& g, vertex_t source, const std::vector<distance_t>& expected,
                   const std::vector<distance_t>& deltas = {0}) {
  const local_graph local = distribute(MPI_COMM_WORLD, g);
  REQUIRE(local.whole.vertices == g.vertex_count());
  REQUIRE(local.whole.arcs == g.arc_count());
  std::uint64_t reachable = 0;
  for (const distance_t d : expected) reachable += d != unreachable;

  for (const collective_library library : {collective_library::hpcoll, collective_library::native}) {
    const std::string collectives = library == collective_library::hpcoll ? "hpcoll" : "native";
    {
      exchange ex(MPI_COMM_WORLD, library);
      const solve_result r = parallel_dijkstra(local, source, ex);
      INFO("dijkstra, ", collectives, ", source ", source + 1);
      CHECK(r.distances.first == local.first);
      CHECK(r.distances.values.size() == local.vertex_count());
      CHECK(first_difference(r, expected) == "");
      CHECK(r.stats.settled == reachable);
      CHECK(ex.allreduce().calls == reachable + 1);  // one per step, one that finds none left
      CHECK(ex.alltoall().calls == reachable);
      CHECK(ex.alltoallv().calls == reachable);
      check_schedule_counters(ex, library);
    }
    for (const distance_t requested : deltas) {
      const distance_t delta = requested ? requested : default_delta(local.whole);
      exchange ex(MPI_COMM_WORLD, library);
      const solve_result r = delta_stepping(local, source, delta, ex);
      INFO("delta ", delta, ", ", collectives, ", source ", source + 1);
      CHECK(first_difference(r, expected) == "");
      CHECK(r.stats.buckets >= 1);
      CHECK(r.stats.phases >= r.stats.buckets);
      // Per bucket: its phases (each an exchange and an allreduce), the heavy arcs' exchange, an
      // allreduce for the next bucket; and the first allreduce.
      CHECK(ex.allreduce().calls == 1 + r.stats.phases + r.stats.buckets);
      CHECK(ex.alltoall().calls == r.stats.phases + r.stats.buckets);
      CHECK(ex.alltoallv().calls == r.stats.phases + r.stats.buckets);
      check_schedule_counters(ex, library);
    }
  }
}

void check_against_sequential(const csr_graph& g, std::vector<vertex_t> sources, const std::vector<distance_t>& deltas = {0}) {
  for (const vertex_t source : sources) check_solvers(g, source, sequential_dijkstra(g, source), deltas);
}

/// n vertices, m random arcs whose weights are drawn from `weights`.
csr_graph random_graph(std::uint64_t n, std::uint64_t m, const std::vector<weight_t>& weights, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<arc> arcs;
  for (std::uint64_t i = 0; i < m; ++i) arcs.emplace_back(random() % n, random() % n, weights[random() % weights.size()]);
  return graph_of(n, arcs);
}

}  // namespace

TEST_CASE("dijkstra.path") {
  // Vertices 0..n-1 in a row, the edge {k, k+1} of weight k+1: from s, vertex k is at |T(k) - T(s)|, T(k) = k(k+1)/2.
  constexpr std::uint64_t n = 40;
  std::vector<arc> arcs;
  for (std::uint64_t k = 0; k + 1 < n; ++k) {
    arcs.emplace_back(k, k + 1, static_cast<weight_t>(k + 1));
    arcs.emplace_back(k + 1, k, static_cast<weight_t>(k + 1));
  }
  const csr_graph g = graph_of(n, arcs);
  for (const std::uint64_t s : {std::uint64_t{0}, n / 2, n - 1}) {
    std::vector<distance_t> expected(n);
    for (std::uint64_t k = 0; k < n; ++k) {
      const auto t = [](std::uint64_t v) { return v * (v + 1) / 2; };
      expected[k] = t(k) > t(s) ? t(k) - t(s) : t(s) - t(k);
    }
    check_solvers(g, static_cast<vertex_t>(s), expected, {0, 1, 7, 1000});
  }
}

TEST_CASE("dijkstra.star") {
  // Centre 0, leaves 1..n-1: the arc 0 -> j weighs j, j -> 0 weighs 1.
  constexpr std::uint64_t n = 30;
  std::vector<arc> arcs;
  for (std::uint64_t j = 1; j < n; ++j) {
    arcs.emplace_back(0, j, static_cast<weight_t>(j));
    arcs.emplace_back(j, 0, 1);
  }
  const csr_graph g = graph_of(n, arcs);
  std::vector<distance_t> from_centre(n), from_leaf(n);
  for (std::uint64_t j = 0; j < n; ++j) {
    from_centre[j] = j;
    from_leaf[j] = j == 0 ? 1 : j == 1 ? 0 : 1 + j;
  }
  check_solvers(g, 0, from_centre, {0, 1, 5});
  check_solvers(g, 1, from_leaf, {0, 1, 5});
}

TEST_CASE("dijkstra.grid") {
  // rows x columns, vertex r * columns + c; horizontal edges weigh 1, vertical ones 3: from
  // (r0, c0), (r, c) is at 3 |r - r0| + |c - c0|.
  constexpr std::uint64_t rows = 9, columns = 12;
  std::vector<arc> arcs;
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < columns; ++c) {
      const std::uint64_t v = r * columns + c;
      if (c + 1 < columns) arcs.insert(arcs.end(), {{v, v + 1, 1}, {v + 1, v, 1}});
      if (r + 1 < rows) arcs.insert(arcs.end(), {{v, v + columns, 3}, {v + columns, v, 3}});
    }
  const csr_graph g = graph_of(rows * columns, arcs);
  for (const auto& [r0, c0] : {std::pair<std::uint64_t, std::uint64_t>{0, 0}, {4, 6}}) {
    std::vector<distance_t> expected(rows * columns);
    for (std::uint64_t r = 0; r < rows; ++r)
      for (std::uint64_t c = 0; c < columns; ++c)
        expected[r * columns + c] = 3 * (r > r0 ? r - r0 : r0 - r) + (c > c0 ? c - c0 : c0 - c);
    check_solvers(g, static_cast<vertex_t>(r0 * columns + c0), expected, {0, 1, 2, 4});
  }
}

TEST_CASE("dijkstra.road_networks") {
  for (const std::uint64_t n : {2, 3, 17}) {
    INFO(n, " nodes");
    check_against_sequential(generate_road_network(n, default_arc_count(n), 11), {0, static_cast<vertex_t>(n - 1)});
  }
  // Large enough for long roads; delta also at half the default and above every weight (one phase per bucket).
  const csr_graph g = generate_road_network(1200, default_arc_count(1200), 5);
  check_against_sequential(g, {0, 777}, {0, 400, 100'000});
}

TEST_CASE("dijkstra.disconnected") {
  // Two road networks side by side, arcs from the second into the first only, and isolated
  // vertices: from the first, the second and the isolated ones are unreachable.
  const csr_graph a = generate_road_network(300, default_arc_count(300), 1);
  const csr_graph b = generate_road_network(200, default_arc_count(200), 2);
  std::vector<arc> arcs;
  for (std::uint64_t u = 0; u < a.vertex_count(); ++u)
    for (std::uint64_t i = a.offsets[u]; i < a.offsets[u + 1]; ++i) arcs.emplace_back(u, a.heads[i], a.weights[i]);
  for (std::uint64_t u = 0; u < b.vertex_count(); ++u)
    for (std::uint64_t i = b.offsets[u]; i < b.offsets[u + 1]; ++i) arcs.emplace_back(300 + u, 300 + b.heads[i], b.weights[i]);
  for (std::uint64_t u = 300; u < 500; u += 50) arcs.emplace_back(u, u - 300, 10);
  const csr_graph g = graph_of(510, arcs);
  const std::vector<distance_t> from_first = sequential_dijkstra(g, 0);
  CHECK(std::count(from_first.begin(), from_first.end(), unreachable) == 210);
  check_solvers(g, 0, from_first);
  check_against_sequential(g, {350, 505});  // the second network reaches the first; an isolated vertex nothing
}

TEST_CASE("dijkstra.zero_weights") {
  // Many arcs of weight 0 (zero-weight cycles among them); delta 1 puts them all in one bucket.
  check_against_sequential(random_graph(150, 600, {0, 0, 0, 1, 2, 7}, 3), {0, 99}, {0, 1, 3});
  check_against_sequential(random_graph(60, 200, {0}, 4), {5}, {0, 1});  // every distance 0 or inf
}

TEST_CASE("dijkstra.parallel_arcs_and_self_loops") {
  std::vector<arc> arcs;
  std::mt19937_64 random(9);
  constexpr std::uint64_t n = 120;
  for (std::uint64_t i = 0; i < 500; ++i) {
    const std::uint64_t u = random() % n, v = random() % n;
    const auto w = static_cast<weight_t>(random() % 50);
    arcs.emplace_back(u, v, w);
    arcs.emplace_back(u, v, w / 2);  // a parallel arc, lighter
    arcs.emplace_back(u, v, w + 9);  // and a heavier one
    arcs.emplace_back(u, u, w);      // a self-loop
  }
  check_against_sequential(graph_of(n, arcs), {0, 60}, {0, 1, 20});
}

TEST_CASE("dijkstra.single_vertex") {
  check_solvers(graph_of(1, {}), 0, {0}, {0, 1});
  check_solvers(graph_of(1, {{0, 0, 0}, {0, 0, 5}}), 0, {0}, {0, 1});
}
