// SPDX-License-Identifier: BSD-3-Clause
#include "parallel_forces.hpp"

#include <omp.h>

#include <hpcoll/collectives/allgather.hpp>
#include <hpcoll/collectives/allgatherv.hpp>
#include <hpcoll/collectives/bcast.hpp>
#include <hpcoll/collectives/gather.hpp>
#include <hpcoll/collectives/gatherv.hpp>
#include <hpcoll/collectives/reduce.hpp>
#include <hpcoll/op.hpp>
#include <hpcoll/select/automatic.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <numeric>
#include <stdexcept>

namespace hpcoll_barnes_hut {

namespace {

/// A count of a native MPI call, which takes ints.
int native_count(std::uint64_t n) {
  if (n > static_cast<std::uint64_t>(INT_MAX))
    throw std::runtime_error("more than INT_MAX elements in one call of the MPI library (use --collectives hpcoll)");
  return static_cast<int>(n);
}

/// Tasks per worker of the whole run under dynamic balancing: enough that the last tasks to finish
/// are short next to a rank's share, few enough that taking one (a remote atomic) costs nothing.
constexpr std::uint64_t tasks_per_worker = 16;

}  // namespace

parallel_forces::parallel_forces(MPI_Comm comm, const parallel_config& config) : comm_(comm), config_(config) {
  if (config_.balance == balance_kind::dynamic) {
    // MPI_Win_allocate (not MPI_Win_create): Open MPI's osc/sm then serves the counter from shared
    // memory on one node, with no progress needed from rank 0 while it computes.
    MPI_Win_allocate(rank() == 0 ? sizeof(std::uint64_t) : 0, sizeof(std::uint64_t), MPI_INFO_NULL, comm_.native(),
                     &counter_memory_, &counter_);
    if (rank() == 0) *counter_memory_ = 0;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, counter_);
    MPI_Win_sync(counter_);
    MPI_Barrier(comm_.native());
  }
  if (config_.library == collective_library::native) {
    MPI_Type_contiguous(sizeof(record), MPI_BYTE, &record_type_);
    MPI_Type_commit(&record_type_);
  }
}

parallel_forces::~parallel_forces() {
  if (counter_ != MPI_WIN_NULL) {
    MPI_Win_unlock_all(counter_);
    MPI_Win_free(&counter_);
  }
  if (record_type_ != MPI_DATATYPE_NULL) MPI_Type_free(&record_type_);
}

template <class Call>
void parallel_forces::counted(const char* name, std::uint64_t bytes, Call&& call) {
  auto usage = std::find_if(collectives_.begin(), collectives_.end(),
                            [&](const collective_usage& u) { return u.name == name; });
  if (usage == collectives_.end()) usage = collectives_.insert(collectives_.end(), collective_usage{name});
  call();
  ++usage->calls;
  usage->bytes += bytes;
}

template <class T>
void parallel_forces::broadcast(std::vector<T>& data) {
  const std::uint64_t bytes = rank() == 0 ? data.size() * sizeof(T) : 0;
  counted("bcast", bytes, [&] {
    if (config_.library == collective_library::hpcoll)
      hpcoll::bcast(comm_, data, 0);
    else
      MPI_Bcast(data.data(), native_count(data.size() * sizeof(T)), MPI_BYTE, 0, comm_.native());
  });
}

void parallel_forces::share_bodies(bodies& b) {
  broadcast(b.points);
  broadcast(b.velocities);
}

void parallel_forces::build_and_broadcast(std::vector<point_mass>& points, phase_seconds& seconds) {
  if (config_.build == build_kind::parallel) {
    if (config_.gather != gather_kind::allgatherv) {
      const double start = MPI_Wtime();
      broadcast(points);
      seconds.bcast = MPI_Wtime() - start;
    }
    const double start = MPI_Wtime();
    tree_ = build_octree(points, config_.workers);
    seconds.mktree = MPI_Wtime() - start;
    return;
  }
  double start = MPI_Wtime();
  if (rank() == 0) tree_ = build_octree(points, 1);  // the study's sequential build
  seconds.mktree = MPI_Wtime() - start;
  start = MPI_Wtime();
  std::vector<std::uint64_t> cells{tree_.cells.size()};
  broadcast(cells);
  if (rank() != 0) {
    tree_.cells.resize(cells[0]);
    tree_.sorted.resize(points.size());
    tree_.body.resize(points.size());
  }
  broadcast(tree_.cells);
  broadcast(tree_.sorted);
  broadcast(tree_.body);
  if (rank() != 0) tree_.index_leaves();
  seconds.bcast = MPI_Wtime() - start;
}

std::uint64_t parallel_forces::next_ticket() {
  const std::uint64_t one = 1;
  std::uint64_t ticket = 0;
  MPI_Fetch_and_op(&one, &ticket, MPI_UINT64_T, 0, 0, MPI_SUM, counter_);
  MPI_Win_flush(0, counter_);
  return ticket;
}

std::uint64_t parallel_forces::compute_tasks(double& seconds) {
  const double start = MPI_Wtime();
  const std::vector<std::uint32_t>& leaves = tree_.leaves;
  const std::uint64_t n = tree_.sorted.size();
  const bool dynamic = config_.balance == balance_kind::dynamic;
  const int workers = config_.workers;
  // Task t: the leaves whose bodies start in [t n / T, (t + 1) n / T), a run of bodies in Morton order.
  const std::uint64_t tasks =
      dynamic ? std::min<std::uint64_t>(leaves.size(), tasks_per_worker * size() * workers) : size();
  std::vector<std::size_t> task_start(tasks + 1);
  for (std::uint64_t t = 0; t <= tasks; ++t)
    task_start[t] = std::lower_bound(leaves.begin(), leaves.end(), n * t / tasks,
                                     [&](std::uint32_t leaf, std::uint64_t body) {
                                       return tree_.cells[leaf].first < body;
                                     }) -
                    leaves.begin();
  const bool full_arrays = config_.gather == gather_kind::reduce;
  if (full_arrays) full_.assign(4 * n, 0.0);
  records_.clear();

  std::uint64_t interactions = 0;
#pragma omp parallel num_threads(workers) reduction(+ : interactions)
  {
    interaction_list list;
    std::vector<force> out;
    std::vector<record> mine;
    const auto compute_leaf = [&](std::uint32_t leaf) {
      const cell& c = tree_.cells[leaf];
      out.resize(c.count);
      interactions += leaf_forces(tree_, leaf, config_.theta, config_.eps, list, out.data());
      for (std::uint32_t k = 0; k < c.count; ++k) {
        const std::uint32_t body = tree_.body[c.first + k];
        if (full_arrays) {
          double* f = &full_[4 * std::size_t{body}];
          f[0] = out[k].ax, f[1] = out[k].ay, f[2] = out[k].az, f[3] = out[k].potential;
        } else {
          mine.push_back({body, out[k]});
        }
      }
    };
    if (dynamic) {
      // Every worker of every rank takes tickets until it draws one past the last task: exactly one
      // such ticket per worker, so the next step's tickets start at a base every rank knows.
      for (;;) {
        std::uint64_t ticket = 0;
#pragma omp critical(task_counter)
        ticket = next_ticket();
        const std::uint64_t task = ticket - ticket_base_;
        if (task >= tasks) break;
        for (std::size_t l = task_start[task]; l < task_start[task + 1]; ++l) compute_leaf(leaves[l]);
      }
    } else {
      const std::size_t first = task_start[rank()], last = task_start[rank() + 1];
#pragma omp for schedule(dynamic, 4)
      for (std::size_t l = first; l < last; ++l) compute_leaf(leaves[l]);
    }
#pragma omp critical(results)
    records_.insert(records_.end(), mine.begin(), mine.end());
  }
  if (dynamic) ticket_base_ += tasks + static_cast<std::uint64_t>(size()) * workers;
  seconds = MPI_Wtime() - start;
  return interactions;
}

void parallel_forces::bring_together(std::vector<force>& forces) {
  const bool native = config_.library == collective_library::native;
  const auto p = static_cast<std::size_t>(size());
  const auto place = [&](const record* first, std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) forces[first[k].body] = first[k].f;
  };
  switch (config_.gather) {
    case gather_kind::gatherv: {
      const std::array<std::uint64_t, 1> mine{records_.size()};
      std::vector<std::uint64_t> counts(rank() == 0 ? p : 0);
      counted("gather", sizeof mine, [&] {
        if (native)
          MPI_Gather(mine.data(), 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, 0, comm_.native());
        else
          hpcoll::gather(comm_, mine, counts, 0);
      });
      std::uint64_t arriving = 0;
      for (const std::uint64_t c : counts) arriving += c;
      arrived_.resize(arriving);
      counted("gatherv", records_.size() * sizeof(record), [&] {
        if (!native) {
          hpcoll::gatherv(comm_, records_, arrived_, counts, 0);
          return;
        }
        std::vector<int> native_counts(counts.size()), displacements(counts.size());
        for (std::size_t r = 0, at = 0; r < counts.size(); at += counts[r++]) {
          native_counts[r] = native_count(counts[r]);
          displacements[r] = native_count(at);
        }
        MPI_Gatherv(records_.data(), native_count(records_.size()), record_type_, arrived_.data(),
                    native_counts.data(), displacements.data(), record_type_, 0, comm_.native());
      });
      if (rank() == 0) place(arrived_.data(), arrived_.size());
      break;
    }
    case gather_kind::reduce: {
      summed_.resize(rank() == 0 ? full_.size() : 0);
      counted("reduce", full_.size() * sizeof(double), [&] {
        if (native)
          MPI_Reduce(full_.data(), summed_.data(), native_count(full_.size()), MPI_DOUBLE, MPI_SUM, 0, comm_.native());
        else
          hpcoll::reduce(comm_, full_, summed_, hpcoll::op::sum{}, 0);
      });
      if (rank() == 0)
        for (std::size_t i = 0; i < forces.size(); ++i)
          forces[i] = {summed_[4 * i], summed_[4 * i + 1], summed_[4 * i + 2], summed_[4 * i + 3]};
      break;
    }
    case gather_kind::allgatherv: {
      const std::array<std::uint64_t, 1> mine{records_.size()};
      std::vector<std::uint64_t> counts(p);
      counted("allgather", sizeof mine, [&] {
        if (native)
          MPI_Allgather(mine.data(), 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, comm_.native());
        else
          hpcoll::allgather(comm_, mine, counts);
      });
      arrived_.resize(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}));
      if (native) {
        std::vector<int> native_counts(p), displacements(p);
        std::uint64_t arriving = 0;
        for (std::size_t r = 0; r < p; arriving += counts[r++]) {
          native_counts[r] = native_count(counts[r]);
          displacements[r] = native_count(arriving);
        }
        counted("allgatherv", records_.size() * sizeof(record), [&] {
          MPI_Allgatherv(records_.data(), native_count(records_.size()), record_type_, arrived_.data(),
                         native_counts.data(), displacements.data(), record_type_, comm_.native());
        });
      } else {
        counted("allgatherv", records_.size() * sizeof(record),
                [&] { hpcoll::allgatherv(comm_, records_, arrived_, counts); });
      }
      place(arrived_.data(), arrived_.size());
      break;
    }
  }
}

std::uint64_t parallel_forces::compute(std::vector<point_mass>& points, std::vector<force>& forces,
                                       phase_seconds& seconds) {
  seconds = {};
  build_and_broadcast(points, seconds);
  const std::uint64_t interactions = compute_tasks(seconds.fcalc);
  const double start = MPI_Wtime();
  bring_together(forces);
  seconds.gather = MPI_Wtime() - start;
  return interactions;
}

}  // namespace hpcoll_barnes_hut
