// SPDX-License-Identifier: BSD-3-Clause
// The MPI collectives of the standard, served by hpcoll where it computes
// exactly what MPI defines, otherwise (and whenever an argument is invalid,
// so that MPI reports it as it would have) by the PMPI function.
//
// Every rank decides from its own arguments; where the program is correct,
// the ranks decide alike (docs/pmpi.md): nothing that MPI lets differ from
// rank to rank (a datatype's layout, a v-collective's displacements) is a
// reason to forward.
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

#include <hpcoll/hpcoll.hpp>

#include "datatypes.hpp"
#include "interception.hpp"
#include "reductions.hpp"

#define HPCOLL_PMPI_EXPORT extern "C" [[gnu::visibility("default")]]

namespace hpcoll::pmpi {
namespace {

/// `count` items of `type` to be moved as bytes, or why they cannot be.
/// Every valid datatype is moved: the ranks may describe the same type
/// signature with different layouts (MPI allows it), so a rank that forwarded
/// because of its layout would meet hpcoll's messages on the others.
struct moved_items {
  std::size_t count = 0;
  datatype_view item{};
  outcome problem = outcome::served;
  std::size_t bytes() const { return count * item.bytes; }
};

moved_items moved(int count, MPI_Datatype type) {
  if (count < 0) return {.problem = outcome::arguments};
  const datatype_view item = view_of(type);
  if (!item.valid) return {.problem = outcome::arguments};
  // MPI_Pack counts bytes in an int: an item must fit in one call.
  if (!item.dense && item.bytes > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    return {.problem = outcome::datatype};
  return {static_cast<std::size_t>(count), item};
}

/// One block of `count` items for each rank of `c` (the buffer of a gather,
/// scatter, allgather or alltoall).
moved_items moved_blocks(int count, const communicator& c, MPI_Datatype type) {
  moved_items all = moved(count, type);
  all.count *= static_cast<std::size_t>(c.size());
  return all;
}

void check_mpi(int code, const char* what) {
  if (code != MPI_SUCCESS) throw hpcoll::error("", "", what, code);
}

/// How many items one MPI_Pack or MPI_Unpack call may take: it counts bytes in an int.
std::size_t items_per_call(const datatype_view& item) {
  return std::max<std::size_t>(1, std::numeric_limits<int>::max() / std::max<std::size_t>(item.bytes, 1));
}

/// Items of a datatype that is not dense, packed to contiguous bytes and unpacked back.
void pack(const void* buffer, std::size_t count, MPI_Datatype type, const datatype_view& item, std::byte* out,
          MPI_Comm comm) {
  const std::size_t per_call = items_per_call(item);
  const auto* from = static_cast<const char*>(buffer);
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(per_call, count - done);
    int position = 0;
    check_mpi(PMPI_Pack(from + static_cast<std::ptrdiff_t>(done) * item.extent, static_cast<int>(n), type,
                        out + done * item.bytes, static_cast<int>(n * item.bytes), &position, comm),
              "packing items of a non-contiguous datatype failed");
    done += n;
  }
}

void unpack(const std::byte* in, void* buffer, std::size_t count, MPI_Datatype type, const datatype_view& item,
            MPI_Comm comm) {
  const std::size_t per_call = items_per_call(item);
  auto* to = static_cast<char*>(buffer);
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(per_call, count - done);
    int position = 0;
    check_mpi(PMPI_Unpack(in + done * item.bytes, static_cast<int>(n * item.bytes), &position,
                          to + static_cast<std::ptrdiff_t>(done) * item.extent, static_cast<int>(n), type, comm),
              "unpacking items of a non-contiguous datatype failed");
    done += n;
  }
}

/// Contiguous bytes standing in for a buffer whose datatype is not dense (the
/// thread's, reused from call to call: one for inputs, one for outputs).
thread_local std::vector<std::byte> input_stage, output_stage;

/// The bytes a collective reads: the buffer itself, or its items packed.
std::span<const std::byte> readable(const void* buffer, const moved_items& items, MPI_Datatype type, MPI_Comm comm) {
  if (items.item.dense) return {static_cast<const std::byte*>(buffer), items.bytes()};
  input_stage.resize(items.bytes());
  pack(buffer, items.count, type, items.item, input_stage.data(), comm);
  return input_stage;
}

/// The bytes a collective writes (and, in place, reads): the buffer itself,
/// or the output stage, holding the buffer's items packed when `updated`;
/// written() unpacks the stage into the buffer.
std::span<std::byte> writable(void* buffer, const moved_items& items, MPI_Datatype type, MPI_Comm comm,
                              bool updated) {
  if (items.item.dense) return {static_cast<std::byte*>(buffer), items.bytes()};
  output_stage.resize(items.bytes());
  if (updated) pack(buffer, items.count, type, items.item, output_stage.data(), comm);
  return output_stage;
}

void written(void* buffer, const moved_items& items, MPI_Datatype type, MPI_Comm comm) {
  if (!items.item.dense) unpack(output_stage.data(), buffer, items.count, type, items.item, comm);
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

/// The root's own block of a gather or scatter, or a rank's of an allgather,
/// whose whole buffer (every rank's block) is `all`: its items, or why they
/// cannot be moved (not the size of one block of `all`, the same buffer).
moved_items own_block(int count, MPI_Datatype type, const void* buffer, const moved_items& all, const void* all_buffer,
                      const communicator& c) {
  moved_items block = moved(count, type);
  if (block.problem == outcome::served && (block.bytes() * static_cast<std::size_t>(c.size()) != all.bytes() ||
                                           aliased(buffer, all_buffer, block.bytes())))
    block.problem = outcome::arguments;
  return block;
}

/// The per-rank blocks of a v-collective's buffer, in bytes of the span
/// hpcoll reads or writes: the buffer itself, or, for a datatype that is not
/// dense or a negative displacement, the stage, where the blocks lie packed
/// one after the other.
struct block_layout {
  std::vector<std::size_t> counts, displs;
  std::size_t bytes = 0;  ///< the span's size: up to the end of the last block
  bool staged = false;
  const int* item_counts = nullptr;
  const int* item_displs = nullptr;

  /// False where a count is negative (MPI reports it).
  bool set(const int* counts_in_items, const int* displs_in_items, const datatype_view& item, int ranks) {
    const auto p = static_cast<std::size_t>(ranks);
    item_counts = counts_in_items;
    item_displs = displs_in_items;
    counts.resize(p);
    displs.resize(p);
    staged = !item.dense || std::any_of(item_displs, item_displs + p, [](int d) { return d < 0; });
    bytes = 0;
    for (std::size_t i = 0; i < p; ++i) {
      if (item_counts[i] < 0) return false;
      counts[i] = static_cast<std::size_t>(item_counts[i]) * item.bytes;
      // An empty block's displacement means nothing to MPI: hpcoll must not check it.
      displs[i] = staged ? bytes : counts[i] == 0 ? 0 : static_cast<std::size_t>(item_displs[i]) * item.bytes;
      bytes = std::max(bytes, displs[i] + counts[i]);
    }
    return true;
  }

  const void* block(const void* buffer, std::size_t i, const datatype_view& item) const {
    return static_cast<const char*>(buffer) + static_cast<std::ptrdiff_t>(item_displs[i]) * item.extent;
  }

  std::span<const std::byte> readable(const void* buffer, MPI_Datatype type, const datatype_view& item,
                                      MPI_Comm comm) const {
    if (!staged) return {static_cast<const std::byte*>(buffer), bytes};
    input_stage.resize(bytes);
    for (std::size_t i = 0; i < counts.size(); ++i)
      pack(block(buffer, i, item), static_cast<std::size_t>(item_counts[i]), type, item, input_stage.data() + displs[i],
           comm);
    return input_stage;
  }

  std::span<std::byte> writable(void* buffer, MPI_Datatype type, const datatype_view& item, MPI_Comm comm,
                                bool updated) const {
    if (!staged) return {static_cast<std::byte*>(buffer), bytes};
    output_stage.resize(bytes);
    if (updated)
      for (std::size_t i = 0; i < counts.size(); ++i)
        pack(block(buffer, i, item), static_cast<std::size_t>(item_counts[i]), type, item,
             output_stage.data() + displs[i], comm);
    return output_stage;
  }

  void written(void* buffer, MPI_Datatype type, const datatype_view& item, MPI_Comm comm) const {
    if (!staged) return;
    for (std::size_t i = 0; i < counts.size(); ++i)
      unpack(output_stage.data() + displs[i], const_cast<void*>(block(buffer, i, item)),
             static_cast<std::size_t>(item_counts[i]), type, item, comm);
  }
};

thread_local block_layout send_layout, receive_layout;

}  // namespace
}  // namespace hpcoll::pmpi

using namespace hpcoll::pmpi;
using hpcoll::communicator;

HPCOLL_PMPI_EXPORT int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return intercept(
      collective::bcast, comm,
      [&](const communicator& c) {
        const moved_items items = moved(count, type);
        if (items.problem != outcome::served) return items.problem;
        if (!valid_root(root, c) || buffer == MPI_IN_PLACE) return outcome::arguments;
        const bool sending = c.rank() == root;
        hpcoll::bcast(c, writable(buffer, items, type, comm, sending), root);
        if (!sending) written(buffer, items, type, comm);
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
          const moved_items sent = moved(sendcount, sendtype);
          if (sent.problem != outcome::served) return sent.problem;
          if (in_place) return outcome::arguments;
          hpcoll::gather(c, readable(sendbuf, sent, sendtype, comm), std::span<std::byte>(), root);
          return outcome::served;
        }
        const moved_items all = moved_blocks(recvcount, c, recvtype);
        if (all.problem != outcome::served) return all.problem;
        if (recvbuf == MPI_IN_PLACE) return outcome::arguments;
        if (in_place) {
          hpcoll::gather(c, hpcoll::in_place, writable(recvbuf, all, recvtype, comm, true), root);
        } else {
          const moved_items sent = own_block(sendcount, sendtype, sendbuf, all, recvbuf, c);
          if (sent.problem != outcome::served) return sent.problem;
          hpcoll::gather(c, readable(sendbuf, sent, sendtype, comm), writable(recvbuf, all, recvtype, comm, false),
                         root);
        }
        written(recvbuf, all, recvtype, comm);
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
          const moved_items sent = moved(sendcount, sendtype);
          if (sent.problem != outcome::served) return sent.problem;
          if (in_place) return outcome::arguments;
          const std::span<const std::size_t> none;
          hpcoll::gatherv(c, readable(sendbuf, sent, sendtype, comm), std::span<std::byte>(), none, none, root);
          return outcome::served;
        }
        const moved_items received = moved(0, recvtype);
        if (received.problem != outcome::served) return received.problem;
        const datatype_view& item = received.item;
        block_layout& layout = receive_layout;
        if (recvbuf == MPI_IN_PLACE || !layout.set(recvcounts, displs, item, c.size())) return outcome::arguments;
        if (in_place) {
          hpcoll::gatherv(c, hpcoll::in_place, layout.writable(recvbuf, recvtype, item, comm, true), layout.counts,
                          layout.displs, root);
        } else {
          const moved_items sent = moved(sendcount, sendtype);
          if (sent.problem != outcome::served) return sent.problem;
          if (sent.bytes() != layout.counts[static_cast<std::size_t>(root)] || aliased(sendbuf, recvbuf, sent.bytes()))
            return outcome::arguments;
          hpcoll::gatherv(c, readable(sendbuf, sent, sendtype, comm),
                          layout.writable(recvbuf, recvtype, item, comm, false), layout.counts, layout.displs, root);
        }
        layout.written(recvbuf, recvtype, item, comm);
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
          const moved_items received = moved(recvcount, recvtype);
          if (received.problem != outcome::served) return received.problem;
          if (in_place) return outcome::arguments;
          hpcoll::scatter(c, std::span<const std::byte>(), writable(recvbuf, received, recvtype, comm, false), root);
          written(recvbuf, received, recvtype, comm);
          return outcome::served;
        }
        const moved_items all = moved_blocks(sendcount, c, sendtype);
        if (all.problem != outcome::served) return all.problem;
        if (sendbuf == MPI_IN_PLACE) return outcome::arguments;
        if (in_place) {
          // The in-place form takes the root's buffer as writable; it only reads it.
          const std::span<const std::byte> in = readable(sendbuf, all, sendtype, comm);
          hpcoll::scatter(c, std::span<std::byte>(const_cast<std::byte*>(in.data()), in.size()), hpcoll::in_place,
                          root);
          return outcome::served;
        }
        const moved_items received = own_block(recvcount, recvtype, recvbuf, all, sendbuf, c);
        if (received.problem != outcome::served) return received.problem;
        hpcoll::scatter(c, readable(sendbuf, all, sendtype, comm), writable(recvbuf, received, recvtype, comm, false),
                        root);
        written(recvbuf, received, recvtype, comm);
        return outcome::served;
      },
      [&] { return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return intercept(
      collective::allgather, comm,
      [&](const communicator& c) {
        const moved_items all = moved_blocks(recvcount, c, recvtype);
        if (all.problem != outcome::served) return all.problem;
        if (recvbuf == MPI_IN_PLACE) return outcome::arguments;
        if (sendbuf == MPI_IN_PLACE) {
          hpcoll::allgather(c, hpcoll::in_place, writable(recvbuf, all, recvtype, comm, true));
        } else {
          const moved_items sent = own_block(sendcount, sendtype, sendbuf, all, recvbuf, c);
          if (sent.problem != outcome::served) return sent.problem;
          hpcoll::allgather(c, readable(sendbuf, sent, sendtype, comm), writable(recvbuf, all, recvtype, comm, false));
        }
        written(recvbuf, all, recvtype, comm);
        return outcome::served;
      },
      [&] { return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                      MPI_Comm comm) {
  return intercept(
      collective::allgatherv, comm,
      [&](const communicator& c) {
        const moved_items received = moved(0, recvtype);
        if (received.problem != outcome::served) return received.problem;
        const datatype_view& item = received.item;
        block_layout& layout = receive_layout;
        if (recvbuf == MPI_IN_PLACE || !layout.set(recvcounts, displs, item, c.size())) return outcome::arguments;
        if (sendbuf == MPI_IN_PLACE) {
          hpcoll::allgatherv(c, hpcoll::in_place, layout.writable(recvbuf, recvtype, item, comm, true), layout.counts,
                             layout.displs);
        } else {
          const moved_items sent = moved(sendcount, sendtype);
          if (sent.problem != outcome::served) return sent.problem;
          if (sent.bytes() != layout.counts[static_cast<std::size_t>(c.rank())] ||
              aliased(sendbuf, recvbuf, sent.bytes()))
            return outcome::arguments;
          hpcoll::allgatherv(c, readable(sendbuf, sent, sendtype, comm),
                             layout.writable(recvbuf, recvtype, item, comm, false), layout.counts, layout.displs);
        }
        layout.written(recvbuf, recvtype, item, comm);
        return outcome::served;
      },
      [&] { return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return intercept(
      collective::alltoall, comm,
      [&](const communicator& c) {
        const moved_items received = moved_blocks(recvcount, c, recvtype);
        if (received.problem != outcome::served) return received.problem;
        if (recvbuf == MPI_IN_PLACE) return outcome::arguments;
        if (sendbuf == MPI_IN_PLACE) {
          hpcoll::alltoall(c, hpcoll::in_place, writable(recvbuf, received, recvtype, comm, true));
        } else {
          const moved_items sent = moved_blocks(sendcount, c, sendtype);
          if (sent.problem != outcome::served) return sent.problem;
          if (sent.bytes() != received.bytes() || aliased(sendbuf, recvbuf, sent.bytes())) return outcome::arguments;
          hpcoll::alltoall(c, readable(sendbuf, sent, sendtype, comm),
                           writable(recvbuf, received, recvtype, comm, false));
        }
        written(recvbuf, received, recvtype, comm);
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
        const moved_items received = moved(0, recvtype);
        if (received.problem != outcome::served) return received.problem;
        block_layout& out = receive_layout;
        if (recvbuf == MPI_IN_PLACE || !out.set(recvcounts, rdispls, received.item, c.size()))
          return outcome::arguments;
        if (sendbuf == MPI_IN_PLACE) {
          hpcoll::alltoallv(c, hpcoll::in_place, out.writable(recvbuf, recvtype, received.item, comm, true),
                            out.counts, out.displs);
        } else {
          const moved_items sent = moved(0, sendtype);
          if (sent.problem != outcome::served) return sent.problem;
          block_layout& in = send_layout;
          if (!in.set(sendcounts, sdispls, sent.item, c.size()) || aliased(sendbuf, recvbuf, in.bytes))
            return outcome::arguments;
          hpcoll::alltoallv(c, in.readable(sendbuf, sendtype, sent.item, comm), in.counts, in.displs,
                            out.writable(recvbuf, recvtype, received.item, comm, false), out.counts, out.displs);
        }
        out.written(recvbuf, recvtype, received.item, comm);
        return outcome::served;
      },
      [&] {
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
      });
}

// The nonblocking forms go to PMPI: an hpcoll::request cannot stand behind
// the MPI_Request that MPI_Wait and MPI_Test complete (docs/pmpi.md).

HPCOLL_PMPI_EXPORT int MPI_Ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                                  MPI_Request* request) {
  return forward_nonblocking(collective::bcast, [&] { return PMPI_Ibcast(buffer, count, type, root, comm, request); });
}

HPCOLL_PMPI_EXPORT int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                      MPI_Comm comm, MPI_Request* request) {
  return forward_nonblocking(collective::allreduce,
                             [&] { return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request); });
}

HPCOLL_PMPI_EXPORT int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                   int root, MPI_Comm comm, MPI_Request* request) {
  return forward_nonblocking(collective::reduce,
                             [&] { return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request); });
}

HPCOLL_PMPI_EXPORT int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return forward_nonblocking(collective::reduce_scatter_block, [&] {
    return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, request);
  });
}

HPCOLL_PMPI_EXPORT int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                   MPI_Request* request) {
  return forward_nonblocking(collective::gather, [&] {
    return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
  });
}

HPCOLL_PMPI_EXPORT int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                    MPI_Comm comm, MPI_Request* request) {
  return forward_nonblocking(collective::gatherv, [&] {
    return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request);
  });
}

HPCOLL_PMPI_EXPORT int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                    MPI_Request* request) {
  return forward_nonblocking(collective::scatter, [&] {
    return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
  });
}

HPCOLL_PMPI_EXPORT int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return forward_nonblocking(collective::allgather, [&] {
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  });
}

HPCOLL_PMPI_EXPORT int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Request* request) {
  return forward_nonblocking(collective::allgatherv, [&] {
    return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
  });
}

HPCOLL_PMPI_EXPORT int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return forward_nonblocking(collective::alltoall, [&] {
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  });
}

HPCOLL_PMPI_EXPORT int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                      MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                      MPI_Request* request) {
  return forward_nonblocking(collective::alltoallv, [&] {
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                           request);
  });
}

HPCOLL_PMPI_EXPORT int MPI_Finalize() {
  if (interception::made()) interception::get().finish();
  return PMPI_Finalize();
}
