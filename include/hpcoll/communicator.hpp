// SPDX-License-Identifier: BSD-3-Clause
// hpcoll::communicator — a private duplicate of a user communicator.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

#include "error.hpp"
#include "mpi_call.hpp"

namespace hpcoll {

/// Customisation point: how to obtain an MPI_Comm from another library's
/// communicator type. hpcoll/boost_mpi.hpp specialises it for
/// boost::mpi::communicator; users may do the same for their own wrappers.
template <class Comm>
struct communicator_source;  // static MPI_Comm native(const Comm&);

template <class Comm>
concept foreign_communicator = requires(const Comm& c) {
  { communicator_source<Comm>::native(c) } -> std::convertible_to<MPI_Comm>;
};

/// What a communicator service is built from: the library's duplicates and their facts.
struct communicator_facts {
  MPI_Comm comm;          ///< where collectives run, each under the tag of its sequence number
  MPI_Comm unsequenced;   ///< for protocols whose messages arrive at any time (the dynamic multicast)
  int rank;
  int size;
  int tag_span;           ///< tags 0 .. tag_span − 1 are valid (MPI_TAG_UB + 1)
  double ranks_per_core;  ///< on the communicator's most crowded node (communicator::ranks_per_core)
  int node_ranks;         ///< ranks of the communicator on its most populated node (communicator::node_ranks)
};

namespace detail {
/// How full the nodes of a communicator are (see crowding).
struct node_crowding {
  double ranks_per_core;  ///< on the most crowded node
  int node_ranks;         ///< on the most populated node
};

/// The ranks of `comm` per core on its most crowded node and the ranks on its
/// most populated node, the same on every rank: a node's cores are the union
/// of its ranks' affinity masks (where the OS tells them; else the node's
/// hardware threads).
inline node_crowding crowding(MPI_Comm comm) {
  MPI_Comm node;
  HPCOLL_MPI(MPI_Comm_split_type, comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int ranks = 1;
  HPCOLL_MPI(MPI_Comm_size, node, &ranks);
  int cores = static_cast<int>(std::thread::hardware_concurrency());
#if defined(__linux__)
  cpu_set_t mine, node_cores;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_ZERO(&mine);
  // Bitwise OR is defined on MPI_BYTE.
  HPCOLL_MPI(MPI_Allreduce, &mine, &node_cores, static_cast<int>(sizeof mine), MPI_BYTE, MPI_BOR, node);
  if (CPU_COUNT(&node_cores) > 0) cores = CPU_COUNT(&node_cores);
#endif
  HPCOLL_MPI(MPI_Comm_free, &node);
  double most[2] = {static_cast<double>(ranks) / std::max(cores, 1), static_cast<double>(ranks)};
  HPCOLL_MPI(MPI_Allreduce, MPI_IN_PLACE, most, 2, MPI_DOUBLE, MPI_MAX, comm);
  return {most[0], static_cast<int>(most[1])};
}

/// The base of every communicator service (see communicator::service).
class communicator_service {
public:
  virtual ~communicator_service() = default;
};

inline std::size_t next_service_slot() {
  static std::atomic<std::size_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}
/// The slot of service type S in every communicator, assigned on first use.
template <class S>
std::size_t service_slot() {
  static const std::size_t slot = next_service_slot();
  return slot;
}
}  // namespace detail

/// Owns two duplicates of the communicator it is built from, so the library's
/// point-to-point traffic can never match the user's own messages: one where
/// collectives run, one for protocols that receive from any rank at any time
/// and so must never meet a collective's messages. Copies share the
/// duplicates (and the operation counter); they are freed with the last copy,
/// which must happen before MPI_Finalize.
class communicator {
public:
  explicit communicator(MPI_Comm comm) : state_(std::make_shared<state>(comm)) {}

  template <foreign_communicator Comm>
  explicit communicator(const Comm& comm) : communicator(communicator_source<Comm>::native(comm)) {}

  int rank() const noexcept { return state_->facts.rank; }
  int size() const noexcept { return state_->facts.size; }
  /// The library's private duplicate (not the communicator it was built from).
  MPI_Comm native() const noexcept { return state_->facts.comm; }
  /// A number no other communicator of the process has had (copies share
  /// it), never 0: lets a thread keep what it looked up on a communicator.
  std::uint64_t serial() const noexcept { return state_->serial; }
  /// Ranks per core on the communicator's most crowded node (same on every
  /// rank; 0.5: half the cores busy, 2: two ranks share each core). The cost
  /// model charges a rank that waits on a crowded node for the others on its core.
  double ranks_per_core() const noexcept { return state_->facts.ranks_per_core; }
  /// Ranks of the communicator on its most populated node (same on every rank).
  int node_ranks() const noexcept { return state_->facts.node_ranks; }

  /// Tag for the next collective operation. Every rank calls collectives on a
  /// communicator in the same order, so every rank draws the same tag; the tag
  /// separates consecutive operations whose messages could otherwise be in
  /// flight at the same time.
  int next_tag() const noexcept {
    const int tag = state_->next_tag;
    state_->next_tag = tag + 1 == state_->facts.tag_span ? 0 : tag + 1;  // the sequence modulo the tag span
    return tag;
  }

  /// The communicator's instance of a library component's per-communicator
  /// state (the dispatcher's decisions, the schedule counters, the multicast
  /// receive engine): made from communicator_facts on first use, destroyed
  /// with the duplicates (last made, first destroyed) before they are freed.
  /// Components bring their own state; the communicator knows none of them.
  template <class Service>
    requires std::derived_from<Service, detail::communicator_service>
  Service& service() const {
    const std::size_t slot = detail::service_slot<Service>();
    if (slot < max_services) [[likely]]
      if (detail::communicator_service* known = state_->services[slot].load(std::memory_order_acquire)) [[likely]]
        return static_cast<Service&>(*known);
    return make_service<Service>(slot);
  }

private:
  static constexpr std::size_t max_services = 8;

  /// service() the first time on this communicator (or a slot too many).
  template <class Service>
  [[gnu::cold]] Service& make_service(std::size_t slot) const {
    if (slot >= max_services) throw error("", "", "communicator: more kinds of communicator services than expected");
    const std::lock_guard lock(state_->making);
    detail::communicator_service* known = state_->services[slot].load(std::memory_order_relaxed);
    if (!known) {
      state_->made.push_back(std::make_unique<Service>(state_->facts));
      known = state_->made.back().get();
      state_->services[slot].store(known, std::memory_order_release);
    }
    return static_cast<Service&>(*known);
  }

  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> last{0};
    return last.fetch_add(1, std::memory_order_relaxed) + 1;
  }

  struct state {
    explicit state(MPI_Comm parent) {
      HPCOLL_MPI(MPI_Comm_dup, parent, &facts.comm);
      HPCOLL_MPI(MPI_Comm_set_errhandler, facts.comm, MPI_ERRORS_RETURN);
      HPCOLL_MPI(MPI_Comm_rank, facts.comm, &facts.rank);
      HPCOLL_MPI(MPI_Comm_size, facts.comm, &facts.size);
      void* value = nullptr;
      int found = 0;
      HPCOLL_MPI(MPI_Comm_get_attr, facts.comm, MPI_TAG_UB, &value, &found);
      // MPI guarantees a tag upper bound of at least 32767.
      facts.tag_span = found ? *static_cast<int*>(value) : 32767;
      HPCOLL_MPI(MPI_Comm_dup, facts.comm, &facts.unsequenced);
      HPCOLL_MPI(MPI_Comm_set_errhandler, facts.unsequenced, MPI_ERRORS_RETURN);
      const detail::node_crowding nodes = detail::crowding(facts.comm);
      facts.ranks_per_core = nodes.ranks_per_core;
      facts.node_ranks = nodes.node_ranks;
    }
    ~state() {
      while (!made.empty()) made.pop_back();
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (finalized) return;
      MPI_Comm_free(&facts.unsequenced);
      MPI_Comm_free(&facts.comm);
    }
    state(const state&) = delete;
    state& operator=(const state&) = delete;

    communicator_facts facts{MPI_COMM_NULL, MPI_COMM_NULL, 0, 0, 32767, 1, 1};
    std::uint64_t serial = next_serial();
    int next_tag = 0;
    std::array<std::atomic<detail::communicator_service*>, max_services> services{};
    std::mutex making;
    std::vector<std::unique_ptr<detail::communicator_service>> made;  ///< in the order they were made
  };
  std::shared_ptr<state> state_;
};

}  // namespace hpcoll
