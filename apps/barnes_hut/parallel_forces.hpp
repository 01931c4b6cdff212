// SPDX-License-Identifier: BSD-3-Clause
// One force computation of the simulation over the ranks of a communicator: tree build, broadcast,
// force computation in tasks taken at run time, and the results brought together by one of three
// collectives (docs/barnes_hut.md, "Parallel structure").
#pragma once

#include <mpi.h>

#include <hpcoll/communicator.hpp>
#include <hpcoll/exec/counters.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "bodies.hpp"
#include "forces.hpp"
#include "octree.hpp"

namespace hpcoll_barnes_hut {

/// How the forces reach the ranks that integrate: gatherv and reduce to rank 0, which integrates;
/// allgatherv to every rank, each integrating all bodies (so no positions are broadcast).
enum class gather_kind { gatherv, reduce, allgatherv };
/// root: rank 0 builds the tree alone (one thread) and broadcasts it; parallel: every rank builds
/// the same tree from the same bodies with its workers, and nothing but the bodies is broadcast.
enum class build_kind { root, parallel };
/// dynamic: ranks take tasks from a shared counter as they finish; static: equal blocks of bodies.
enum class balance_kind { dynamic, equal_blocks };
/// Whose collectives: hpcoll's free functions (the dispatcher chooses) or the MPI library's.
enum class collective_library { hpcoll, native };

struct parallel_config {
  gather_kind gather = gather_kind::gatherv;
  build_kind build = build_kind::root;
  balance_kind balance = balance_kind::dynamic;
  collective_library library = collective_library::hpcoll;
  int workers = 1;
  double theta = 0.5, eps = 0.01;
};

/// One rank's calls of one collective.
struct collective_usage {
  std::string name;  ///< hpcoll's name of the collective ("gatherv"; native calls too)
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;  ///< sent by this rank (a broadcast: by the root)
};

/// The phases of one force computation on this rank, in seconds.
struct phase_seconds {
  double mktree = 0, bcast = 0, fcalc = 0, gather = 0;
};

class parallel_forces {
public:
  parallel_forces(MPI_Comm comm, const parallel_config& config);
  parallel_forces(const parallel_forces&) = delete;
  parallel_forces& operator=(const parallel_forces&) = delete;
  ~parallel_forces();

  int rank() const { return comm_.rank(); }
  int size() const { return comm_.size(); }
  /// Does this rank integrate (and so hold every body and every force)?
  bool integrates() const { return config_.gather == gather_kind::allgatherv || rank() == 0; }

  /// Rank 0's bodies (positions, masses and velocities) on every rank, where `b` is already sized
  /// (before the first step of gather allgatherv, where every rank integrates).
  void share_bodies(bodies& b);

  /// The forces on the bodies at `points` (valid on the ranks that integrate; elsewhere only sized),
  /// in body order into `forces` on the ranks that integrate. Returns this rank's interactions.
  std::uint64_t compute(std::vector<point_mass>& points, std::vector<force>& forces, phase_seconds& seconds);

  /// Every collective called so far, in the order of their first calls (the same on every rank).
  const std::vector<collective_usage>& collectives() const { return collectives_; }
  /// Which schedule each hpcoll collective ran, how often (none with native collectives).
  std::vector<hpcoll::schedule_count> schedules() const { return hpcoll::schedule_counts(comm_); }

private:
  /// A force on its way to the integrating ranks.
  struct record {
    std::uint64_t body;
    force f;
  };

  /// Runs call(), counting one call of `bytes` for the collective `name`.
  template <class Call>
  void counted(const char* name, std::uint64_t bytes, Call&& call);
  template <class T>
  void broadcast(std::vector<T>& data);
  void build_and_broadcast(std::vector<point_mass>& points, phase_seconds& seconds);
  std::uint64_t compute_tasks(double& seconds);
  void bring_together(std::vector<force>& forces);
  std::uint64_t next_ticket();

  hpcoll::communicator comm_;
  parallel_config config_;
  octree tree_;
  /// The shared task counter (on rank 0) and where this step's tickets start.
  MPI_Win counter_ = MPI_WIN_NULL;
  std::uint64_t* counter_memory_ = nullptr;
  std::uint64_t ticket_base_ = 0;
  MPI_Datatype record_type_ = MPI_DATATYPE_NULL;  // native gatherv and allgatherv
  std::vector<collective_usage> collectives_;
  // This rank's results: records (gatherv, allgatherv) or zero-initialised full arrays (reduce).
  std::vector<record> records_, arrived_;
  std::vector<double> full_, summed_;
};

}  // namespace hpcoll_barnes_hut
