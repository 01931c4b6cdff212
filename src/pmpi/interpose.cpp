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
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <span>
#include <vector>

#include <hpcoll/hpcoll.hpp>

#include "datatypes.hpp"
#include "interception.hpp"
#include "reductions.hpp"
#include "settings.hpp"

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

/// The bytes a collective reads: the buffer itself, or its items packed.
std::span<const std::byte> readable(const served_call& call, const void* buffer, const moved_items& items,
                                    MPI_Datatype type, MPI_Comm comm) {
  if (items.item.dense) return {static_cast<const std::byte*>(buffer), items.bytes()};
  std::vector<std::byte>& input = call.staged().input;
  input.resize(items.bytes());
  pack(buffer, items.count, type, items.item, input.data(), comm);
  return input;
}

/// The bytes a collective writes (and, in place, reads): the buffer itself,
/// or the output stage, holding the buffer's items packed when `updated`;
/// written() unpacks the stage into the buffer.
std::span<std::byte> writable(const served_call& call, void* buffer, const moved_items& items, MPI_Datatype type,
                              MPI_Comm comm, bool updated) {
  if (items.item.dense) return {static_cast<std::byte*>(buffer), items.bytes()};
  std::vector<std::byte>& output = call.staged().output;
  output.resize(items.bytes());
  if (updated) pack(buffer, items.count, type, items.item, output.data(), comm);
  return output;
}

void written(const served_call& call, void* buffer, const moved_items& items, MPI_Datatype type, MPI_Comm comm) {
  if (items.item.dense) return;
  const MPI_Datatype kept = call.hold(type);
  const std::vector<std::byte>& output = call.staged().output;
  call.then([&output, buffer, items, kept, comm] { unpack(output.data(), buffer, items.count, kept, items.item, comm); });
}

/// block_layout::written, once the collective has ended.
void written(const served_call& call, const block_layout& layout, void* buffer, MPI_Datatype type,
             const datatype_view& item, MPI_Comm comm) {
  if (!layout.staged) return;
  const MPI_Datatype kept = call.hold(type);
  const std::vector<std::byte>& output = call.staged().output;
  call.then([&output, &layout, buffer, kept, item, comm] { layout.written(output, buffer, kept, item, comm); });
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

/// asks_thread_multiple() of HPCOLL_PMPI_THREAD. Before MPI_Init there is no
/// job to abort: every rank prints the problem and exits.
bool thread_multiple_from_environment() {
  const char* value = std::getenv("HPCOLL_PMPI_THREAD");
  try {
    return asks_thread_multiple(value ? value : "");
  } catch (const error& e) {
    std::fprintf(stderr, "hpcoll: %s\n", detail::problem_of(e).c_str());
    std::exit(1);
  }
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


/// The collectives as hpcoll serves them, through `call` (blocking or
/// nonblocking): outcome::served, or why the call goes to PMPI, having run nothing.

outcome serve_bcast(const served_call& call, const communicator& c, void* buffer, int count, MPI_Datatype type,
                    int root, MPI_Comm comm) {
  const moved_items items = moved(count, type);
  if (items.problem != outcome::served) return items.problem;
  if (!valid_root(root, c) || buffer == MPI_IN_PLACE) return outcome::arguments;
  const bool sending = c.rank() == root;
  call.run<hpcoll::Bcast<>>(c, writable(call, buffer, items, type, comm, sending), root);
  if (!sending) written(call, buffer, items, type, comm);
  return outcome::served;
}

outcome serve_allreduce(const served_call& call, const communicator& c, const void* sendbuf, void* recvbuf, int count,
                        MPI_Datatype type, MPI_Op op) {
  const reduction_items items = items_of(count, type, op);
  if (items.problem != outcome::served) return items.problem;
  if (aliased(sendbuf, recvbuf, items.n) || recvbuf == MPI_IN_PLACE) return outcome::arguments;
  const void* in = sendbuf == MPI_IN_PLACE ? nullptr : sendbuf;
  return allreduce(call, c, items.kind, items.op, in, recvbuf, items.n) ? outcome::served : outcome::op_not_for_type;
}

outcome serve_reduce(const served_call& call, const communicator& c, const void* sendbuf, void* recvbuf, int count,
                     MPI_Datatype type, MPI_Op op, int root) {
  const reduction_items items = items_of(count, type, op);
  if (items.problem != outcome::served) return items.problem;
  if (!valid_root(root, c)) return outcome::arguments;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (c.rank() == root ? aliased(sendbuf, recvbuf, items.n) || recvbuf == MPI_IN_PLACE : in_place)
    return outcome::arguments;
  return reduce(call, c, items.kind, items.op, in_place ? nullptr : sendbuf, recvbuf, items.n, root)
             ? outcome::served
             : outcome::op_not_for_type;
}

outcome serve_reduce_scatter_block(const served_call& call, const communicator& c, const void* sendbuf, void* recvbuf,
                                   int recvcount, MPI_Datatype type, MPI_Op op) {
  const reduction_items items = items_of(recvcount, type, op);
  if (items.problem != outcome::served) return items.problem;
  if (aliased(sendbuf, recvbuf, items.n) || recvbuf == MPI_IN_PLACE) return outcome::arguments;
  const void* in = sendbuf == MPI_IN_PLACE ? nullptr : sendbuf;
  return reduce_scatter_block(call, c, items.kind, items.op, in, recvbuf, items.n) ? outcome::served
                                                                                   : outcome::op_not_for_type;
}

outcome serve_gather(const served_call& call, const communicator& c, const void* sendbuf, int sendcount,
                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                     MPI_Comm comm) {
  if (!valid_root(root, c)) return outcome::arguments;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (c.rank() != root) {
    const moved_items sent = moved(sendcount, sendtype);
    if (sent.problem != outcome::served) return sent.problem;
    if (in_place) return outcome::arguments;
    call.run<hpcoll::Gather<>>(c, readable(call, sendbuf, sent, sendtype, comm), std::span<std::byte>(), root);
    return outcome::served;
  }
  const moved_items all = moved_blocks(recvcount, c, recvtype);
  if (all.problem != outcome::served) return all.problem;
  if (recvbuf == MPI_IN_PLACE) return outcome::arguments;
  if (in_place) {
    call.run<hpcoll::Gather<>>(c, hpcoll::in_place, writable(call, recvbuf, all, recvtype, comm, true), root);
  } else {
    const moved_items sent = own_block(sendcount, sendtype, sendbuf, all, recvbuf, c);
    if (sent.problem != outcome::served) return sent.problem;
    call.run<hpcoll::Gather<>>(c, readable(call, sendbuf, sent, sendtype, comm),
                               writable(call, recvbuf, all, recvtype, comm, false), root);
  }
  written(call, recvbuf, all, recvtype, comm);
  return outcome::served;
}

outcome serve_gatherv(const served_call& call, const communicator& c, const void* sendbuf, int sendcount,
                      MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (!valid_root(root, c)) return outcome::arguments;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (c.rank() != root) {
    const moved_items sent = moved(sendcount, sendtype);
    if (sent.problem != outcome::served) return sent.problem;
    if (in_place) return outcome::arguments;
    const std::span<const std::size_t> none;
    call.run<hpcoll::Gatherv<>>(c, readable(call, sendbuf, sent, sendtype, comm), std::span<std::byte>(), none, none,
                                root);
    return outcome::served;
  }
  const moved_items received = moved(0, recvtype);
  if (received.problem != outcome::served) return received.problem;
  const datatype_view& item = received.item;
  stage& staged = call.staged();
  block_layout& layout = staged.receive;
  if (recvbuf == MPI_IN_PLACE || !layout.set(recvcounts, displs, item, c.size())) return outcome::arguments;
  if (in_place) {
    call.run<hpcoll::Gatherv<>>(c, hpcoll::in_place, layout.writable(recvbuf, recvtype, item, comm, true, staged.output),
                                layout.counts, layout.displs, root);
  } else {
    const moved_items sent = moved(sendcount, sendtype);
    if (sent.problem != outcome::served) return sent.problem;
    if (sent.bytes() != layout.counts[static_cast<std::size_t>(root)] || aliased(sendbuf, recvbuf, sent.bytes()))
      return outcome::arguments;
    call.run<hpcoll::Gatherv<>>(c, readable(call, sendbuf, sent, sendtype, comm),
                                layout.writable(recvbuf, recvtype, item, comm, false, staged.output), layout.counts,
                                layout.displs, root);
  }
  written(call, layout, recvbuf, recvtype, item, comm);
  return outcome::served;
}

outcome serve_scatter(const served_call& call, const communicator& c, const void* sendbuf, int sendcount,
                      MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm) {
  if (!valid_root(root, c)) return outcome::arguments;
  const bool in_place = recvbuf == MPI_IN_PLACE;
  if (c.rank() != root) {
    const moved_items received = moved(recvcount, recvtype);
    if (received.problem != outcome::served) return received.problem;
    if (in_place) return outcome::arguments;
    call.run<hpcoll::Scatter<>>(c, std::span<const std::byte>(),
                                writable(call, recvbuf, received, recvtype, comm, false), root);
    written(call, recvbuf, received, recvtype, comm);
    return outcome::served;
  }
  const moved_items all = moved_blocks(sendcount, c, sendtype);
  if (all.problem != outcome::served) return all.problem;
  if (sendbuf == MPI_IN_PLACE) return outcome::arguments;
  if (in_place) {
    // The in-place form takes the root's buffer as writable; it only reads it.
    const std::span<const std::byte> in = readable(call, sendbuf, all, sendtype, comm);
    call.run<hpcoll::Scatter<>>(c, std::span<std::byte>(const_cast<std::byte*>(in.data()), in.size()),
                                hpcoll::in_place, root);
    return outcome::served;
  }
  const moved_items received = own_block(recvcount, recvtype, recvbuf, all, sendbuf, c);
  if (received.problem != outcome::served) return received.problem;
  call.run<hpcoll::Scatter<>>(c, readable(call, sendbuf, all, sendtype, comm),
                              writable(call, recvbuf, received, recvtype, comm, false), root);
  written(call, recvbuf, received, recvtype, comm);
  return outcome::served;
}

outcome serve_allgather(const served_call& call, const communicator& c, const void* sendbuf, int sendcount,
                        MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const moved_items all = moved_blocks(recvcount, c, recvtype);
  if (all.problem != outcome::served) return all.problem;
  if (recvbuf == MPI_IN_PLACE) return outcome::arguments;
  if (sendbuf == MPI_IN_PLACE) {
    call.run<hpcoll::Allgather<>>(c, hpcoll::in_place, writable(call, recvbuf, all, recvtype, comm, true));
  } else {
    const moved_items sent = own_block(sendcount, sendtype, sendbuf, all, recvbuf, c);
    if (sent.problem != outcome::served) return sent.problem;
    call.run<hpcoll::Allgather<>>(c, readable(call, sendbuf, sent, sendtype, comm),
                                  writable(call, recvbuf, all, recvtype, comm, false));
  }
  written(call, recvbuf, all, recvtype, comm);
  return outcome::served;
}

outcome serve_allgatherv(const served_call& call, const communicator& c, const void* sendbuf, int sendcount,
                         MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[],
                         MPI_Datatype recvtype, MPI_Comm comm) {
  const moved_items received = moved(0, recvtype);
  if (received.problem != outcome::served) return received.problem;
  const datatype_view& item = received.item;
  stage& staged = call.staged();
  block_layout& layout = staged.receive;
  if (recvbuf == MPI_IN_PLACE || !layout.set(recvcounts, displs, item, c.size())) return outcome::arguments;
  if (sendbuf == MPI_IN_PLACE) {
    call.run<hpcoll::Allgatherv<>>(c, hpcoll::in_place,
                                   layout.writable(recvbuf, recvtype, item, comm, true, staged.output), layout.counts,
                                   layout.displs);
  } else {
    const moved_items sent = moved(sendcount, sendtype);
    if (sent.problem != outcome::served) return sent.problem;
    if (sent.bytes() != layout.counts[static_cast<std::size_t>(c.rank())] || aliased(sendbuf, recvbuf, sent.bytes()))
      return outcome::arguments;
    call.run<hpcoll::Allgatherv<>>(c, readable(call, sendbuf, sent, sendtype, comm),
                                   layout.writable(recvbuf, recvtype, item, comm, false, staged.output),
                                   layout.counts, layout.displs);
  }
  written(call, layout, recvbuf, recvtype, item, comm);
  return outcome::served;
}

outcome serve_alltoall(const served_call& call, const communicator& c, const void* sendbuf, int sendcount,
                       MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const moved_items received = moved_blocks(recvcount, c, recvtype);
  if (received.problem != outcome::served) return received.problem;
  if (recvbuf == MPI_IN_PLACE) return outcome::arguments;
  if (sendbuf == MPI_IN_PLACE) {
    call.run<hpcoll::Alltoall<>>(c, hpcoll::in_place, writable(call, recvbuf, received, recvtype, comm, true));
  } else {
    const moved_items sent = moved_blocks(sendcount, c, sendtype);
    if (sent.problem != outcome::served) return sent.problem;
    if (sent.bytes() != received.bytes() || aliased(sendbuf, recvbuf, sent.bytes())) return outcome::arguments;
    call.run<hpcoll::Alltoall<>>(c, readable(call, sendbuf, sent, sendtype, comm),
                                 writable(call, recvbuf, received, recvtype, comm, false));
  }
  written(call, recvbuf, received, recvtype, comm);
  return outcome::served;
}

outcome serve_alltoallv(const served_call& call, const communicator& c, const void* sendbuf, const int sendcounts[],
                        const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const moved_items received = moved(0, recvtype);
  if (received.problem != outcome::served) return received.problem;
  stage& staged = call.staged();
  block_layout& out = staged.receive;
  if (recvbuf == MPI_IN_PLACE || !out.set(recvcounts, rdispls, received.item, c.size())) return outcome::arguments;
  if (sendbuf == MPI_IN_PLACE) {
    call.run<hpcoll::Alltoallv<>>(c, hpcoll::in_place,
                                  out.writable(recvbuf, recvtype, received.item, comm, true, staged.output), out.counts,
                                  out.displs);
  } else {
    const moved_items sent = moved(0, sendtype);
    if (sent.problem != outcome::served) return sent.problem;
    block_layout& in = staged.send;
    if (!in.set(sendcounts, sdispls, sent.item, c.size()) || aliased(sendbuf, recvbuf, in.bytes))
      return outcome::arguments;
    call.run<hpcoll::Alltoallv<>>(c, in.readable(sendbuf, sendtype, sent.item, comm, staged.input), in.counts,
                                  in.displs, out.writable(recvbuf, recvtype, received.item, comm, false, staged.output),
                                  out.counts, out.displs);
  }
  written(call, out, recvbuf, recvtype, received.item, comm);
  return outcome::served;
}

}  // namespace
}  // namespace hpcoll::pmpi

using namespace hpcoll::pmpi;
using hpcoll::communicator;

// Each collective twice: the blocking form, run at once, and the nonblocking
// one, started and completed through its MPI_Request (nonblocking.hpp).

HPCOLL_PMPI_EXPORT int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return intercept(
      collective::bcast, comm,
      [&](const communicator& c, const served_call& call) {
        return serve_bcast(call, c, buffer, count, type, root, comm);
      },
      [&] { return PMPI_Bcast(buffer, count, type, root, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                                  MPI_Request* request) {
  return intercept_nonblocking(
      collective::bcast, comm, request,
      [&](const communicator& c, const served_call& call) {
        return serve_bcast(call, c, buffer, count, type, root, comm);
      },
      [&] { return PMPI_Ibcast(buffer, count, type, root, comm, request); });
}

HPCOLL_PMPI_EXPORT int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                     MPI_Comm comm) {
  return intercept(
      collective::allreduce, comm,
      [&](const communicator& c, const served_call& call) {
        return serve_allreduce(call, c, sendbuf, recvbuf, count, type, op);
      },
      [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                      MPI_Comm comm, MPI_Request* request) {
  return intercept_nonblocking(
      collective::allreduce, comm, request,
      [&](const communicator& c, const served_call& call) {
        return serve_allreduce(call, c, sendbuf, recvbuf, count, type, op);
      },
      [&] { return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request); });
}

HPCOLL_PMPI_EXPORT int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                  int root, MPI_Comm comm) {
  return intercept(
      collective::reduce, comm,
      [&](const communicator& c, const served_call& call) {
        return serve_reduce(call, c, sendbuf, recvbuf, count, type, op, root);
      },
      [&] { return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                   int root, MPI_Comm comm, MPI_Request* request) {
  return intercept_nonblocking(
      collective::reduce, comm, request,
      [&](const communicator& c, const served_call& call) {
        return serve_reduce(call, c, sendbuf, recvbuf, count, type, op, root);
      },
      [&] { return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request); });
}

HPCOLL_PMPI_EXPORT int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                                                MPI_Op op, MPI_Comm comm) {
  return intercept(
      collective::reduce_scatter_block, comm,
      [&](const communicator& c, const served_call& call) {
        return serve_reduce_scatter_block(call, c, sendbuf, recvbuf, recvcount, type, op);
      },
      [&] { return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return intercept_nonblocking(
      collective::reduce_scatter_block, comm, request,
      [&](const communicator& c, const served_call& call) {
        return serve_reduce_scatter_block(call, c, sendbuf, recvbuf, recvcount, type, op);
      },
      [&] { return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, request); });
}

HPCOLL_PMPI_EXPORT int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return intercept(
      collective::gather, comm,
      [&](const communicator& c, const served_call& call) {
        return serve_gather(call, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
      },
      [&] { return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                   MPI_Request* request) {
  return intercept_nonblocking(
      collective::gather, comm, request,
      [&](const communicator& c, const served_call& call) {
        return serve_gather(call, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
      },
      [&] { return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request); });
}

HPCOLL_PMPI_EXPORT int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                   MPI_Comm comm) {
  return intercept(
      collective::gatherv, comm,
      [&](const communicator& c, const served_call& call) {
        return serve_gatherv(call, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
      },
      [&] {
        return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
      });
}

HPCOLL_PMPI_EXPORT int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                    MPI_Comm comm, MPI_Request* request) {
  return intercept_nonblocking(
      collective::gatherv, comm, request,
      [&](const communicator& c, const served_call& call) {
        return serve_gatherv(call, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
      },
      [&] {
        return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request);
      });
}

HPCOLL_PMPI_EXPORT int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return intercept(
      collective::scatter, comm,
      [&](const communicator& c, const served_call& call) {
        return serve_scatter(call, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
      },
      [&] { return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                    MPI_Request* request) {
  return intercept_nonblocking(
      collective::scatter, comm, request,
      [&](const communicator& c, const served_call& call) {
        return serve_scatter(call, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
      },
      [&] { return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request); });
}

HPCOLL_PMPI_EXPORT int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return intercept(
      collective::allgather, comm,
      [&](const communicator& c, const served_call& call) {
        return serve_allgather(call, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      },
      [&] { return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return intercept_nonblocking(
      collective::allgather, comm, request,
      [&](const communicator& c, const served_call& call) {
        return serve_allgather(call, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      },
      [&] { return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request); });
}

HPCOLL_PMPI_EXPORT int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                      MPI_Comm comm) {
  return intercept(
      collective::allgatherv, comm,
      [&](const communicator& c, const served_call& call) {
        return serve_allgatherv(call, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
      },
      [&] { return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Request* request) {
  return intercept_nonblocking(
      collective::allgatherv, comm, request,
      [&](const communicator& c, const served_call& call) {
        return serve_allgatherv(call, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
      },
      [&] {
        return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
      });
}

HPCOLL_PMPI_EXPORT int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return intercept(
      collective::alltoall, comm,
      [&](const communicator& c, const served_call& call) {
        return serve_alltoall(call, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      },
      [&] { return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}

HPCOLL_PMPI_EXPORT int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return intercept_nonblocking(
      collective::alltoall, comm, request,
      [&](const communicator& c, const served_call& call) {
        return serve_alltoall(call, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      },
      [&] { return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request); });
}

HPCOLL_PMPI_EXPORT int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                     MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return intercept(
      collective::alltoallv, comm,
      [&](const communicator& c, const served_call& call) {
        return serve_alltoallv(call, c, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype, comm);
      },
      [&] {
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
      });
}

HPCOLL_PMPI_EXPORT int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                      MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                      MPI_Request* request) {
  return intercept_nonblocking(
      collective::alltoallv, comm, request,
      [&](const communicator& c, const served_call& call) {
        return serve_alltoallv(call, c, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype, comm);
      },
      [&] {
        return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                               request);
      });
}

// HPCOLL_PMPI_THREAD=multiple: the program gets MPI_THREAD_MULTIPLE (more
// than it asks for, as MPI may give), so that its nonblocking forms are served.

HPCOLL_PMPI_EXPORT int MPI_Init(int* argc, char*** argv) {
  if (!thread_multiple_from_environment()) return PMPI_Init(argc, argv);
  int provided = MPI_THREAD_SINGLE;
  return PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
}

HPCOLL_PMPI_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  return PMPI_Init_thread(argc, argv, thread_multiple_from_environment() ? MPI_THREAD_MULTIPLE : required, provided);
}

HPCOLL_PMPI_EXPORT int MPI_Finalize() {
  if (interception::made()) interception::get().finish();
  return PMPI_Finalize();
}
