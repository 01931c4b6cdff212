// SPDX-License-Identifier: BSD-3-Clause
// The MPI collectives of the standard, served by hpcoll where it computes
// exactly what MPI defines, otherwise (and whenever an argument is invalid,
// so that MPI reports it as it would have) by the PMPI function.
//
// Every rank decides from its own arguments; the decision is the same on
// every rank as long as the ranks' datatypes have the same layout, not only
// the same type signature (docs/pmpi.md).
#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

#include <hpcoll/hpcoll.hpp>

#include "datatypes.hpp"
#include "interception.hpp"
#include "reductions.hpp"

#define HPCOLL_PMPI_EXPORT extern "C" [[gnu::visibility("default")]]

namespace hpcoll::pmpi {
namespace {

/// `count` items of `type` as contiguous bytes, or why they cannot be moved as such.
struct byte_block {
  std::size_t bytes = 0;
  outcome problem = outcome::served;
};

byte_block block_of(int count, MPI_Datatype type) {
  if (count < 0 || type == MPI_DATATYPE_NULL) return {0, outcome::arguments};
  const datatype_view view = view_of(type);
  if (!view.dense) return {0, outcome::datatype};
  return {static_cast<std::size_t>(count) * view.bytes};
}

/// `count` items of `type` as elements of a reduction by `op`, or why they cannot be reduced.
struct reduction_items {
  element kind = element::none;
  reduction_op op = reduction_op::other;
  std::size_t n = 0;
  outcome problem = outcome::served;
};

reduction_items items_of(int count, MPI_Datatype type, MPI_Op op) {
  if (count < 0 || type == MPI_DATATYPE_NULL || op == MPI_OP_NULL) return {.problem = outcome::arguments};
  const reduction_op predefined = op_of(op);
  if (predefined == reduction_op::other) return {.problem = outcome::user_op};
  const datatype_view view = view_of(type);
  if (view.kind == element::none) return {.problem = outcome::datatype};
  return {view.kind, predefined, static_cast<std::size_t>(count) * view.elements};
}

bool valid_root(int root, const communicator& c) { return root >= 0 && root < c.size(); }

/// The same buffer as input and output without MPI_IN_PLACE, which MPI
/// forbids (empty buffers, often both null, do not count).
bool aliased(const void* in, const void* out, std::size_t size) { return in == out && size != 0; }

std::span<const std::byte> input_bytes(const void* buffer, std::size_t bytes) {
  return {static_cast<const std::byte*>(buffer), bytes};
}
std::span<std::byte> output_bytes(void* buffer, std::size_t bytes) { return {static_cast<std::byte*>(buffer), bytes}; }

/// Per-rank counts and displacements in bytes (the thread's, reused from call to call).
struct byte_layout {
  std::vector<std::size_t> counts, displs;
  std::size_t extent = 0;  ///< the bytes the blocks span from the buffer's start

  /// False where a count or displacement is negative (MPI reports it).
  bool set(const int* item_counts, const int* item_displs, std::size_t item_bytes, int ranks) {
    const auto p = static_cast<std::size_t>(ranks);
    counts.resize(p);
    displs.resize(p);
    extent = 0;
    for (std::size_t i = 0; i < p; ++i) {
      if (item_counts[i] < 0 || item_displs[i] < 0) return false;
      counts[i] = static_cast<std::size_t>(item_counts[i]) * item_bytes;
      // An empty block's displacement means nothing to MPI: hpcoll must not check it.
      displs[i] = counts[i] == 0 ? 0 : static_cast<std::size_t>(item_displs[i]) * item_bytes;
      extent = std::max(extent, displs[i] + counts[i]);
    }
    return true;
  }
};

thread_local byte_layout send_layout, receive_layout;

/// The item size of a dense datatype (its displacements count items), or why there is none.
byte_block item_of(MPI_Datatype type) { return block_of(1, type); }

}  // namespace
}  // namespace hpcoll::pmpi

using namespace hpcoll::pmpi;
using hpcoll::communicator;

HPCOLL_PMPI_EXPORT int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return intercept(
      collective::bcast, comm,
      [&](const communicator& c) {
        const byte_block block = block_of(count, type);
        if (block.problem != outcome::served) return block.problem;
        if (!valid_root(root, c) || buffer == MPI_IN_PLACE) return outcome::arguments;
        hpcoll::bcast(c, output_bytes(buffer, block.bytes), root);
        return outcome::served;
      },
      [&] { return PMPI_Bcast(buffer, count, type, root, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                     MPI_Comm comm) {
  return intercept(
      collective::allreduce, comm,
      [&](const communicator& c) {
        const reduction_items items = items_of(count, type, op);
        if (items.problem != outcome::served) return items.problem;
        if (aliased(sendbuf, recvbuf, items.n) || recvbuf == MPI_IN_PLACE) return outcome::arguments;
        const void* in = sendbuf == MPI_IN_PLACE ? nullptr : sendbuf;
        return allreduce(c, items.kind, items.op, in, recvbuf, items.n) ? outcome::served : outcome::op_not_for_type;
      },
      [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                  int root, MPI_Comm comm) {
  return intercept(
      collective::reduce, comm,
      [&](const communicator& c) {
        const reduction_items items = items_of(count, type, op);
        if (items.problem != outcome::served) return items.problem;
        if (!valid_root(root, c)) return outcome::arguments;
        const bool in_place = sendbuf == MPI_IN_PLACE;
        if (c.rank() == root ? aliased(sendbuf, recvbuf, items.n) || recvbuf == MPI_IN_PLACE : in_place)
          return outcome::arguments;
        return reduce(c, items.kind, items.op, in_place ? nullptr : sendbuf, recvbuf, items.n, root)
                   ? outcome::served
                   : outcome::op_not_for_type;
      },
      [&] { return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                                                MPI_Op op, MPI_Comm comm) {
  return intercept(
      collective::reduce_scatter_block, comm,
      [&](const communicator& c) {
        const reduction_items items = items_of(recvcount, type, op);
        if (items.problem != outcome::served) return items.problem;
        if (aliased(sendbuf, recvbuf, items.n) || recvbuf == MPI_IN_PLACE) return outcome::arguments;
        const void* in = sendbuf == MPI_IN_PLACE ? nullptr : sendbuf;
        return reduce_scatter_block(c, items.kind, items.op, in, recvbuf, items.n) ? outcome::served
                                                                                  : outcome::op_not_for_type;
      },
      [&] { return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return intercept(
      collective::gather, comm,
      [&](const communicator& c) {
        if (!valid_root(root, c)) return outcome::arguments;
        const bool in_place = sendbuf == MPI_IN_PLACE;
        if (c.rank() != root) {
          const byte_block sent = block_of(sendcount, sendtype);
          if (sent.problem != outcome::served) return sent.problem;
          if (in_place) return outcome::arguments;
          hpcoll::gather(c, input_bytes(sendbuf, sent.bytes), std::span<std::byte>(), root);
          return outcome::served;
        }
        const byte_block block = block_of(recvcount, recvtype);
        if (block.problem != outcome::served) return block.problem;
        if (recvbuf == MPI_IN_PLACE) return outcome::arguments;
        const auto all = output_bytes(recvbuf, block.bytes * static_cast<std::size_t>(c.size()));
        if (in_place) {
          hpcoll::gather(c, hpcoll::in_place, all, root);
          return outcome::served;
        }
        const byte_block sent = block_of(sendcount, sendtype);
        if (sent.problem != outcome::served) return sent.problem;
        if (sent.bytes != block.bytes || aliased(sendbuf, recvbuf, sent.bytes)) return outcome::arguments;
        hpcoll::gather(c, input_bytes(sendbuf, sent.bytes), all, root);
        return outcome::served;
      },
      [&] { return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                   MPI_Comm comm) {
  return intercept(
      collective::gatherv, comm,
      [&](const communicator& c) {
        if (!valid_root(root, c)) return outcome::arguments;
        const bool in_place = sendbuf == MPI_IN_PLACE;
        if (c.rank() != root) {
          const byte_block sent = block_of(sendcount, sendtype);
          if (sent.problem != outcome::served) return sent.problem;
          if (in_place) return outcome::arguments;
          const std::span<const std::size_t> none;
          hpcoll::gatherv(c, input_bytes(sendbuf, sent.bytes), std::span<std::byte>(), none, none, root);
          return outcome::served;
        }
        const byte_block item = item_of(recvtype);
        if (item.problem != outcome::served) return item.problem;
        byte_layout& layout = receive_layout;
        if (recvbuf == MPI_IN_PLACE || !layout.set(recvcounts, displs, item.bytes, c.size())) return outcome::arguments;
        const auto all = output_bytes(recvbuf, layout.extent);
        if (in_place) {
          hpcoll::gatherv(c, hpcoll::in_place, all, layout.counts, layout.displs, root);
          return outcome::served;
        }
        const byte_block sent = block_of(sendcount, sendtype);
        if (sent.problem != outcome::served) return sent.problem;
        if (sent.bytes != layout.counts[static_cast<std::size_t>(root)] || aliased(sendbuf, recvbuf, sent.bytes))
          return outcome::arguments;
        hpcoll::gatherv(c, input_bytes(sendbuf, sent.bytes), all, layout.counts, layout.displs, root);
        return outcome::served;
      },
      [&] {
        return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
      });
}

HPCOLL_PMPI_EXPORT int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return intercept(
      collective::scatter, comm,
      [&](const communicator& c) {
        if (!valid_root(root, c)) return outcome::arguments;
        const bool in_place = recvbuf == MPI_IN_PLACE;
        if (c.rank() != root) {
          const byte_block received = block_of(recvcount, recvtype);
          if (received.problem != outcome::served) return received.problem;
          if (in_place) return outcome::arguments;
          hpcoll::scatter(c, std::span<const std::byte>(), output_bytes(recvbuf, received.bytes), root);
          return outcome::served;
        }
        const byte_block block = block_of(sendcount, sendtype);
        if (block.problem != outcome::served) return block.problem;
        if (sendbuf == MPI_IN_PLACE) return outcome::arguments;
        const std::size_t all = block.bytes * static_cast<std::size_t>(c.size());
        if (in_place) {
          // The in-place form takes the root's buffer as writable; it only reads it.
          hpcoll::scatter(c, output_bytes(const_cast<void*>(sendbuf), all), hpcoll::in_place, root);
          return outcome::served;
        }
        const byte_block received = block_of(recvcount, recvtype);
        if (received.problem != outcome::served) return received.problem;
        if (received.bytes != block.bytes || aliased(sendbuf, recvbuf, received.bytes)) return outcome::arguments;
        hpcoll::scatter(c, input_bytes(sendbuf, all), output_bytes(recvbuf, received.bytes), root);
        return outcome::served;
      },
      [&] { return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return intercept(
      collective::allgather, comm,
      [&](const communicator& c) {
        const byte_block block = block_of(recvcount, recvtype);
        if (block.problem != outcome::served) return block.problem;
        if (recvbuf == MPI_IN_PLACE) return outcome::arguments;
        const auto all = output_bytes(recvbuf, block.bytes * static_cast<std::size_t>(c.size()));
        if (sendbuf == MPI_IN_PLACE) {
          hpcoll::allgather(c, hpcoll::in_place, all);
          return outcome::served;
        }
        const byte_block sent = block_of(sendcount, sendtype);
        if (sent.problem != outcome::served) return sent.problem;
        if (sent.bytes != block.bytes || aliased(sendbuf, recvbuf, sent.bytes)) return outcome::arguments;
        hpcoll::allgather(c, input_bytes(sendbuf, sent.bytes), all);
        return outcome::served;
      },
      [&] { return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return intercept(
      collective::alltoall, comm,
      [&](const communicator& c) {
        const byte_block block = block_of(recvcount, recvtype);
        if (block.problem != outcome::served) return block.problem;
        if (recvbuf == MPI_IN_PLACE) return outcome::arguments;
        const std::size_t all = block.bytes * static_cast<std::size_t>(c.size());
        if (sendbuf == MPI_IN_PLACE) {
          hpcoll::alltoall(c, hpcoll::in_place, output_bytes(recvbuf, all));
          return outcome::served;
        }
        const byte_block sent = block_of(sendcount, sendtype);
        if (sent.problem != outcome::served) return sent.problem;
        if (sent.bytes != block.bytes || aliased(sendbuf, recvbuf, all)) return outcome::arguments;
        hpcoll::alltoall(c, input_bytes(sendbuf, all), output_bytes(recvbuf, all));
        return outcome::served;
      },
      [&] { return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                     MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return intercept(
      collective::alltoallv, comm,
      [&](const communicator& c) {
        const byte_block received = item_of(recvtype);
        if (received.problem != outcome::served) return received.problem;
        byte_layout& in = send_layout;
        byte_layout& out = receive_layout;
        if (recvbuf == MPI_IN_PLACE || !out.set(recvcounts, rdispls, received.bytes, c.size()))
          return outcome::arguments;
        const auto all = output_bytes(recvbuf, out.extent);
        if (sendbuf == MPI_IN_PLACE) {
          hpcoll::alltoallv(c, hpcoll::in_place, all, out.counts, out.displs);
          return outcome::served;
        }
        const byte_block sent = item_of(sendtype);
        if (sent.problem != outcome::served) return sent.problem;
        if (!in.set(sendcounts, sdispls, sent.bytes, c.size()) || aliased(sendbuf, recvbuf, in.extent))
          return outcome::arguments;
        hpcoll::alltoallv(c, input_bytes(sendbuf, in.extent), in.counts, in.displs, all, out.counts, out.displs);
        return outcome::served;
      },
      [&] {
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
      });
}

HPCOLL_PMPI_EXPORT int MPI_Finalize() {
  if (interception::made()) interception::get().finish();
  return PMPI_Finalize();
}
