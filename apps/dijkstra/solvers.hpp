// SPDX-License-Identifier: BSD-3-Clause
// The shortest-path solvers, all exact (64-bit integer distances):
//   sequential_dijkstra  a binary-heap Dijkstra on one rank's whole graph, the reference;
//   parallel_dijkstra    one vertex settled per step, chosen by an allreduce (minloc);
//   delta_stepping       Meyer and Sanders' buckets of width delta, relaxed in phases.
// The parallel solvers run on a 1-D partition (partition.hpp) and talk only
// through an `exchange`: hpcoll's collectives or the MPI library's own.
#pragma once

#include <mpi.h>

#include <hpcoll/communicator.hpp>
#include <hpcoll/exec/counters.hpp>

#include <cstdint>
#include <utility>
#include <vector>

#include "graph.hpp"
#include "partition.hpp"

namespace hpcoll_dijkstra {

/// Whose collectives the parallel solvers call.
enum class collective_library { hpcoll, native };

/// What one rank spent in one collective.
struct collective_usage {
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;  ///< sent by this rank (an allreduce: its element)
  double seconds = 0;
};

/// A message of the parallel solvers: `vertex` can be reached at `distance`.
struct relaxation {
  std::uint64_t vertex;
  distance_t distance;
};

/// The three collectives of the parallel solvers, each call timed and
/// counted. With collective_library::hpcoll they are hpcoll's free functions
/// (hpcoll::allreduce, alltoall, alltoallv: the dispatcher chooses each
/// schedule) on a private communicator, whose schedule counters therefore
/// count the solver's calls alone.
class exchange {
public:
  exchange(MPI_Comm comm, collective_library library);
  exchange(const exchange&) = delete;
  exchange& operator=(const exchange&) = delete;
  ~exchange();

  int rank() const { return comm_.rank(); }
  int size() const { return comm_.size(); }

  /// The smallest (distance, vertex) pair over the ranks (allreduce, minloc:
  /// on equal distances the smaller vertex).
  std::pair<distance_t, std::uint64_t> min_location(std::pair<distance_t, std::uint64_t> mine);
  /// The smallest value over the ranks (allreduce, min).
  std::uint64_t minimum(std::uint64_t mine);
  /// outgoing[r] goes to rank r (an alltoall of the counts, then an
  /// alltoallv of the messages); what every rank sent here lands in
  /// `incoming`. Empties outgoing's lists.
  void all_to_all(std::vector<std::vector<relaxation>>& outgoing, std::vector<relaxation>& incoming);

  const collective_usage& allreduce() const { return allreduce_; }
  const collective_usage& alltoall() const { return alltoall_; }
  const collective_usage& alltoallv() const { return alltoallv_; }
  double collective_seconds() const { return allreduce_.seconds + alltoall_.seconds + alltoallv_.seconds; }
  /// Which schedule each hpcoll collective ran, how often (none with native collectives).
  std::vector<hpcoll::schedule_count> schedules() const { return hpcoll::schedule_counts(comm_); }

private:
  hpcoll::communicator comm_;
  collective_library library_;
  MPI_Datatype relaxation_type_ = MPI_DATATYPE_NULL;  // native alltoallv
  collective_usage allreduce_, alltoall_, alltoallv_;
  // Buffers kept between calls.
  std::vector<std::uint64_t> send_counts_, receive_counts_, send_displs_, receive_displs_;
  std::vector<relaxation> send_buffer_;
  std::vector<int> native_counts_[4];
};

/// Counters of a solver's run on one rank.
struct solve_stats {
  std::uint64_t settled = 0;  ///< parallel_dijkstra: steps, one per reachable vertex
  std::uint64_t buckets = 0;  ///< delta_stepping: buckets processed
  std::uint64_t phases = 0;   ///< delta_stepping: light phases over all buckets
  std::uint64_t relaxations = 0;  ///< arcs relaxed by this rank (delta_stepping: some several times)
  double seconds = 0;         ///< the solver's wall time on this rank
};

struct solve_result {
  distance_slice distances;  ///< the rank's own vertices
  solve_stats stats;
};

/// Distances from `source` to every vertex of g (`unreachable` where no path).
std::vector<distance_t> sequential_dijkstra(const csr_graph& g, vertex_t source);

/// Dijkstra's algorithm on the partitioned graph: per step an allreduce
/// (minloc) finds the globally nearest unsettled vertex, its owner relaxes its
/// arcs, the relaxations of other ranks' vertices travel by an alltoall of
/// counts and an alltoallv; one step per reachable vertex. Every rank knows
/// which vertices are settled (each step's minloc says), so arcs into them are
/// never sent.
solve_result parallel_dijkstra(const local_graph& g, vertex_t source, exchange& ex);

/// The bucket width delta_stepping uses by default: the mean arc weight times
/// four, at least 1 (docs/dijkstra.md explains the choice).
distance_t default_delta(const graph_summary& g);

/// Delta-stepping: bucket i holds the vertices at tentative distance
/// [i delta, (i + 1) delta). Per bucket, phases relax the light arcs (weight
/// <= delta) of the vertices in it until no rank has any left (one alltoall
/// and alltoallv of requests, then an allreduce, per phase), then the heavy
/// arcs of every vertex it settled once (an alltoall and alltoallv); an
/// allreduce (min) picks the next bucket and stops the loop. delta >= 1.
solve_result delta_stepping(const local_graph& g, vertex_t source, distance_t delta, exchange& ex);

}  // namespace hpcoll_dijkstra
