// hpcoll::communicator — a private duplicate of a user communicator.
#pragma once

#include <mpi.h>

#include <concepts>
#include <cstdio>
#include <memory>
#include <vector>

#include "detail/dispatch_cache.hpp"
#include "detail/mcast_channel.hpp"
#include "detail/mpi.hpp"

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

/// Owns a duplicate of the communicator it is built from, so the library's
/// point-to-point traffic can never match the user's own messages. Copies share
/// the duplicate (and its operation counter); the duplicate is freed with the
/// last copy, which must happen before MPI_Finalize.
class communicator {
public:
  explicit communicator(MPI_Comm comm) : state_(std::make_shared<state>(comm)) {}

  template <foreign_communicator Comm>
  explicit communicator(const Comm& comm) : communicator(communicator_source<Comm>::native(comm)) {}

  int rank() const noexcept { return state_->rank; }
  int size() const noexcept { return state_->size; }
  /// The library's private duplicate (not the communicator it was built from).
  MPI_Comm native() const noexcept { return state_->comm; }

  /// Tag for the next collective operation. Every rank calls collectives on a
  /// communicator in the same order, so every rank draws the same tag; the tag
  /// separates consecutive operations whose messages could otherwise be in
  /// flight at the same time.
  int next_tag() const noexcept {
    const int tag = static_cast<int>(state_->sequence % static_cast<unsigned long long>(state_->tag_span));
    ++state_->sequence;
    return tag;
  }

  /// The dispatcher's decisions and schedule counters (library internal).
  detail::dispatch_cache& dispatch_cache() const noexcept { return state_->dispatch; }
  /// The multicast channel (library internal).
  detail::mcast_channel& mcast_channel() const noexcept { return state_->mcast; }

private:
  struct state {
    explicit state(MPI_Comm parent) {
      HPCOLL_MPI(MPI_Comm_dup, parent, &comm);
      HPCOLL_MPI(MPI_Comm_set_errhandler, comm, MPI_ERRORS_RETURN);
      HPCOLL_MPI(MPI_Comm_rank, comm, &rank);
      HPCOLL_MPI(MPI_Comm_size, comm, &size);
      void* value = nullptr;
      int found = 0;
      HPCOLL_MPI(MPI_Comm_get_attr, comm, MPI_TAG_UB, &value, &found);
      // MPI guarantees a tag upper bound of at least 32767.
      tag_span = found ? *static_cast<int*>(value) : 32767;
      HPCOLL_MPI(MPI_Comm_dup, comm, &mcast.comm);
      HPCOLL_MPI(MPI_Comm_set_errhandler, mcast.comm, MPI_ERRORS_RETURN);
      mcast.tag_span = tag_span;
    }
    ~state() {
      if (detail::verbose() && rank == 0) print_counts();
      int finalized = 0;
      MPI_Finalized(&finalized);
      mcast.inbox.reset();  // cancels the receives it has pending
      if (!finalized) {
        MPI_Comm_free(&mcast.comm);
        MPI_Comm_free(&comm);
      }
    }
    state(const state&) = delete;
    state& operator=(const state&) = delete;

    /// HPCOLL_VERBOSE: which schedule ran how often, when the communicator goes.
    void print_counts() const {
      const std::vector<schedule_count> counts = dispatch.counts();
      if (counts.empty()) return;
      std::fprintf(stderr, "hpcoll: schedules run on a communicator of %d ranks:\n", size);
      for (const schedule_count& c : counts)
        std::fprintf(stderr, "  %-22.*s %-60s %10llu calls%s\n", static_cast<int>(c.collective.size()),
                     c.collective.data(), c.schedule.c_str(), static_cast<unsigned long long>(c.calls),
                     c.dispatched ? " (dispatched)" : "");
    }

    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0;
    int size = 0;
    int tag_span = 32767;
    unsigned long long sequence = 0;
    detail::dispatch_cache dispatch;
    detail::mcast_channel mcast;
  };
  std::shared_ptr<state> state_;
};

}  // namespace hpcoll
