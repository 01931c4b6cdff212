// SPDX-License-Identifier: BSD-3-Clause
// The Fortran entry points of mpif.h, `use mpi` and `use mpi_f08`, for Open
// MPI: its own (libmpi_mpifh, libmpi_usempif08) call the PMPI_ functions,
// out of the library's reach, so these take their place and call the
// library's MPI_ functions. gfortran's names (lower case, one trailing
// underscore) (docs/pmpi.md, "Fortran").
#include <mpi.h>

#if defined(OPEN_MPI)

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

#define HPCOLL_PMPI_EXPORT extern "C" [[gnu::visibility("default")]]

// Open MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM: common blocks whose
// addresses a Fortran program passes.
extern "C" char mpi_fortran_in_place_;
extern "C" char mpi_fortran_bottom_;
// ... and its MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE.
extern "C" char mpi_fortran_status_ignore_;
extern "C" char mpi_fortran_statuses_ignore_;

namespace {

static_assert(std::is_same_v<MPI_Fint, int>, "the counts and displacements arrays are passed on as int arrays");

/// A Fortran buffer argument as the C functions take it.
const void* in_buffer(const void* buffer) {
  if (buffer == &mpi_fortran_in_place_) return MPI_IN_PLACE;
  if (buffer == &mpi_fortran_bottom_) return MPI_BOTTOM;
  return buffer;
}
void* out_buffer(void* buffer) { return const_cast<void*>(in_buffer(buffer)); }

/// The error code, where the caller passed an argument for it (`use mpi_f08`'s ierror is optional).
void set(MPI_Fint* ierr, int code) {
  if (ierr) *ierr = code;
}

/// A nonblocking call: `start_c(&request)` makes it through the C function;
/// its request goes back to Fortran as an integer.
template <class Start>
void start(MPI_Fint* request, MPI_Fint* ierr, Start&& start_c) {
  MPI_Request r = MPI_REQUEST_NULL;
  const int code = start_c(&r);
  if (code == MPI_SUCCESS) *request = PMPI_Request_c2f(r);
  set(ierr, code);
}

/// Whether a status argument is Fortran's MPI_STATUS_IGNORE (MPI_STATUSES_IGNORE).
bool status_ignored(const MPI_Fint* status) {
  return static_cast<const void*>(status) == &mpi_fortran_status_ignore_;
}
bool statuses_ignored(const MPI_Fint* statuses) {
  return static_cast<const void*>(statuses) == &mpi_fortran_statuses_ignore_;
}

/// Fortran's status: MPI_STATUS_SIZE integers, the C struct's (Open MPI's
/// MPI_Status_c2f copies it word by word).
constexpr std::size_t status_size = sizeof(MPI_Status) / sizeof(MPI_Fint);

/// The C requests and statuses of an array of Fortran requests.
struct request_array {
  request_array(MPI_Fint count, const MPI_Fint* fortran) : requests(std::max(count, 0)), statuses(requests.size()) {
    for (std::size_t i = 0; i < requests.size(); ++i) requests[i] = PMPI_Request_f2c(fortran[i]);
  }

  /// The requests (MPI_REQUEST_NULL where completed) and statuses after completion.
  void hand_back(MPI_Fint* fortran, MPI_Fint* fortran_statuses) const {
    for (std::size_t i = 0; i < requests.size(); ++i) {
      fortran[i] = PMPI_Request_c2f(requests[i]);
      if (!statuses_ignored(fortran_statuses)) PMPI_Status_c2f(&statuses[i], fortran_statuses + i * status_size);
    }
  }

  /// After MPI_Waitsome or MPI_Testsome: the `outcount` completed requests,
  /// their 0-based `indices` made Fortran's (1-based), and their statuses.
  void hand_back_some(MPI_Fint* fortran, int outcount, MPI_Fint* indices, MPI_Fint* fortran_statuses) const {
    if (outcount == MPI_UNDEFINED) return;
    for (int i = 0; i < outcount; ++i) {
      fortran[indices[i]] = PMPI_Request_c2f(requests[indices[i]]);
      ++indices[i];
      if (!statuses_ignored(fortran_statuses)) PMPI_Status_c2f(&statuses[i], fortran_statuses + i * status_size);
    }
  }

  /// After MPI_Waitany or MPI_Testany completed the request at 0-based
  /// `index` (MPI_UNDEFINED when none was active): Fortran's index.
  MPI_Fint hand_back_one(MPI_Fint* fortran, int index) const {
    if (index == MPI_UNDEFINED) return MPI_UNDEFINED;
    fortran[index] = PMPI_Request_c2f(requests[index]);
    return index + 1;
  }

  std::vector<MPI_Request> requests;
  std::vector<MPI_Status> statuses;
};

/// MPI_WAITSOME or MPI_TESTSOME through the library's C function `c_call`.
void complete_some(int (*c_call)(int, MPI_Request[], int*, int[], MPI_Status[]), const MPI_Fint* incount,
                   MPI_Fint* requests, MPI_Fint* outcount, MPI_Fint* indices, MPI_Fint* statuses, MPI_Fint* ierr) {
  request_array c(*incount, requests);
  const int code = c_call(*incount, c.requests.data(), outcount, indices, c.statuses.data());
  set(ierr, code);
  if (code == MPI_SUCCESS || code == MPI_ERR_IN_STATUS) c.hand_back_some(requests, *outcount, indices, statuses);
}

MPI_Comm comm_of(const MPI_Fint* comm) { return PMPI_Comm_f2c(*comm); }
MPI_Datatype type_of(const MPI_Fint* type) { return PMPI_Type_f2c(*type); }
MPI_Op op_of(const MPI_Fint* op) { return PMPI_Op_f2c(*op); }

}  // namespace

HPCOLL_PMPI_EXPORT void mpi_bcast_(void* buffer, const MPI_Fint* count, const MPI_Fint* type, const MPI_Fint* root,
                                   const MPI_Fint* comm, MPI_Fint* ierr) {
  set(ierr, MPI_Bcast(out_buffer(buffer), *count, type_of(type), *root, comm_of(comm)));
}

HPCOLL_PMPI_EXPORT void mpi_reduce_(const void* sendbuf, void* recvbuf, const MPI_Fint* count, const MPI_Fint* type,
                                    const MPI_Fint* op, const MPI_Fint* root, const MPI_Fint* comm, MPI_Fint* ierr) {
  set(ierr,
      MPI_Reduce(in_buffer(sendbuf), out_buffer(recvbuf), *count, type_of(type), op_of(op), *root, comm_of(comm)));
}

HPCOLL_PMPI_EXPORT void mpi_allreduce_(const void* sendbuf, void* recvbuf, const MPI_Fint* count,
                                       const MPI_Fint* type, const MPI_Fint* op, const MPI_Fint* comm,
                                       MPI_Fint* ierr) {
  set(ierr, MPI_Allreduce(in_buffer(sendbuf), out_buffer(recvbuf), *count, type_of(type), op_of(op), comm_of(comm)));
}

HPCOLL_PMPI_EXPORT void mpi_reduce_scatter_block_(const void* sendbuf, void* recvbuf, const MPI_Fint* recvcount,
                                                  const MPI_Fint* type, const MPI_Fint* op, const MPI_Fint* comm,
                                                  MPI_Fint* ierr) {
  set(ierr, MPI_Reduce_scatter_block(in_buffer(sendbuf), out_buffer(recvbuf), *recvcount, type_of(type), op_of(op),
                                   comm_of(comm)));
}

HPCOLL_PMPI_EXPORT void mpi_gather_(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype,
                                    void* recvbuf, const MPI_Fint* recvcount, const MPI_Fint* recvtype,
                                    const MPI_Fint* root, const MPI_Fint* comm, MPI_Fint* ierr) {
  set(ierr, MPI_Gather(in_buffer(sendbuf), *sendcount, type_of(sendtype), out_buffer(recvbuf), *recvcount,
                     type_of(recvtype), *root, comm_of(comm)));
}

HPCOLL_PMPI_EXPORT void mpi_gatherv_(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype,
                                     void* recvbuf, const MPI_Fint* recvcounts, const MPI_Fint* displs,
                                     const MPI_Fint* recvtype, const MPI_Fint* root, const MPI_Fint* comm,
                                     MPI_Fint* ierr) {
  set(ierr, MPI_Gatherv(in_buffer(sendbuf), *sendcount, type_of(sendtype), out_buffer(recvbuf), recvcounts, displs,
                      type_of(recvtype), *root, comm_of(comm)));
}

HPCOLL_PMPI_EXPORT void mpi_scatter_(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype,
                                     void* recvbuf, const MPI_Fint* recvcount, const MPI_Fint* recvtype,
                                     const MPI_Fint* root, const MPI_Fint* comm, MPI_Fint* ierr) {
  set(ierr, MPI_Scatter(in_buffer(sendbuf), *sendcount, type_of(sendtype), out_buffer(recvbuf), *recvcount,
                      type_of(recvtype), *root, comm_of(comm)));
}

HPCOLL_PMPI_EXPORT void mpi_allgather_(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype,
                                       void* recvbuf, const MPI_Fint* recvcount, const MPI_Fint* recvtype,
                                       const MPI_Fint* comm, MPI_Fint* ierr) {
  set(ierr, MPI_Allgather(in_buffer(sendbuf), *sendcount, type_of(sendtype), out_buffer(recvbuf), *recvcount,
                        type_of(recvtype), comm_of(comm)));
}

HPCOLL_PMPI_EXPORT void mpi_allgatherv_(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype,
                                        void* recvbuf, const MPI_Fint* recvcounts, const MPI_Fint* displs,
                                        const MPI_Fint* recvtype, const MPI_Fint* comm, MPI_Fint* ierr) {
  set(ierr, MPI_Allgatherv(in_buffer(sendbuf), *sendcount, type_of(sendtype), out_buffer(recvbuf), recvcounts,
                           displs, type_of(recvtype), comm_of(comm)));
}

HPCOLL_PMPI_EXPORT void mpi_alltoall_(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype,
                                      void* recvbuf, const MPI_Fint* recvcount, const MPI_Fint* recvtype,
                                      const MPI_Fint* comm, MPI_Fint* ierr) {
  set(ierr, MPI_Alltoall(in_buffer(sendbuf), *sendcount, type_of(sendtype), out_buffer(recvbuf), *recvcount,
                       type_of(recvtype), comm_of(comm)));
}

HPCOLL_PMPI_EXPORT void mpi_alltoallv_(const void* sendbuf, const MPI_Fint* sendcounts, const MPI_Fint* sdispls,
                                       const MPI_Fint* sendtype, void* recvbuf, const MPI_Fint* recvcounts,
                                       const MPI_Fint* rdispls, const MPI_Fint* recvtype, const MPI_Fint* comm,
                                       MPI_Fint* ierr) {
  set(ierr, MPI_Alltoallv(in_buffer(sendbuf), sendcounts, sdispls, type_of(sendtype), out_buffer(recvbuf), recvcounts,
                        rdispls, type_of(recvtype), comm_of(comm)));
}

// The nonblocking forms: the request handed back is the library's (a
// generalized request while a served run is in flight, MPI's own when the
// call was forwarded), as a Fortran integer.

HPCOLL_PMPI_EXPORT void mpi_ibcast_(void* buffer, const MPI_Fint* count, const MPI_Fint* type, const MPI_Fint* root,
                                    const MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr) {
  start(request, ierr, [&](MPI_Request* r) {
    return MPI_Ibcast(out_buffer(buffer), *count, type_of(type), *root, comm_of(comm), r);
  });
}

HPCOLL_PMPI_EXPORT void mpi_ireduce_(const void* sendbuf, void* recvbuf, const MPI_Fint* count, const MPI_Fint* type,
                                     const MPI_Fint* op, const MPI_Fint* root, const MPI_Fint* comm,
                                     MPI_Fint* request, MPI_Fint* ierr) {
  start(request, ierr, [&](MPI_Request* r) {
    return MPI_Ireduce(in_buffer(sendbuf), out_buffer(recvbuf), *count, type_of(type), op_of(op), *root, comm_of(comm),
                       r);
  });
}

HPCOLL_PMPI_EXPORT void mpi_iallreduce_(const void* sendbuf, void* recvbuf, const MPI_Fint* count,
                                        const MPI_Fint* type, const MPI_Fint* op, const MPI_Fint* comm,
                                        MPI_Fint* request, MPI_Fint* ierr) {
  start(request, ierr, [&](MPI_Request* r) {
    return MPI_Iallreduce(in_buffer(sendbuf), out_buffer(recvbuf), *count, type_of(type), op_of(op), comm_of(comm), r);
  });
}

HPCOLL_PMPI_EXPORT void mpi_ireduce_scatter_block_(const void* sendbuf, void* recvbuf, const MPI_Fint* recvcount,
                                                   const MPI_Fint* type, const MPI_Fint* op, const MPI_Fint* comm,
                                                   MPI_Fint* request, MPI_Fint* ierr) {
  start(request, ierr, [&](MPI_Request* r) {
    return MPI_Ireduce_scatter_block(in_buffer(sendbuf), out_buffer(recvbuf), *recvcount, type_of(type), op_of(op),
                                     comm_of(comm), r);
  });
}

HPCOLL_PMPI_EXPORT void mpi_igather_(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype,
                                     void* recvbuf, const MPI_Fint* recvcount, const MPI_Fint* recvtype,
                                     const MPI_Fint* root, const MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr) {
  start(request, ierr, [&](MPI_Request* r) {
    return MPI_Igather(in_buffer(sendbuf), *sendcount, type_of(sendtype), out_buffer(recvbuf), *recvcount,
                       type_of(recvtype), *root, comm_of(comm), r);
  });
}

HPCOLL_PMPI_EXPORT void mpi_igatherv_(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype,
                                      void* recvbuf, const MPI_Fint* recvcounts, const MPI_Fint* displs,
                                      const MPI_Fint* recvtype, const MPI_Fint* root, const MPI_Fint* comm,
                                      MPI_Fint* request, MPI_Fint* ierr) {
  start(request, ierr, [&](MPI_Request* r) {
    return MPI_Igatherv(in_buffer(sendbuf), *sendcount, type_of(sendtype), out_buffer(recvbuf), recvcounts, displs,
                        type_of(recvtype), *root, comm_of(comm), r);
  });
}

HPCOLL_PMPI_EXPORT void mpi_iscatter_(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype,
                                      void* recvbuf, const MPI_Fint* recvcount, const MPI_Fint* recvtype,
                                      const MPI_Fint* root, const MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr) {
  start(request, ierr, [&](MPI_Request* r) {
    return MPI_Iscatter(in_buffer(sendbuf), *sendcount, type_of(sendtype), out_buffer(recvbuf), *recvcount,
                        type_of(recvtype), *root, comm_of(comm), r);
  });
}

HPCOLL_PMPI_EXPORT void mpi_iallgather_(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype,
                                        void* recvbuf, const MPI_Fint* recvcount, const MPI_Fint* recvtype,
                                        const MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr) {
  start(request, ierr, [&](MPI_Request* r) {
    return MPI_Iallgather(in_buffer(sendbuf), *sendcount, type_of(sendtype), out_buffer(recvbuf), *recvcount,
                          type_of(recvtype), comm_of(comm), r);
  });
}

HPCOLL_PMPI_EXPORT void mpi_iallgatherv_(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype,
                                         void* recvbuf, const MPI_Fint* recvcounts, const MPI_Fint* displs,
                                         const MPI_Fint* recvtype, const MPI_Fint* comm, MPI_Fint* request,
                                         MPI_Fint* ierr) {
  start(request, ierr, [&](MPI_Request* r) {
    return MPI_Iallgatherv(in_buffer(sendbuf), *sendcount, type_of(sendtype), out_buffer(recvbuf), recvcounts, displs,
                           type_of(recvtype), comm_of(comm), r);
  });
}

HPCOLL_PMPI_EXPORT void mpi_ialltoall_(const void* sendbuf, const MPI_Fint* sendcount, const MPI_Fint* sendtype,
                                       void* recvbuf, const MPI_Fint* recvcount, const MPI_Fint* recvtype,
                                       const MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr) {
  start(request, ierr, [&](MPI_Request* r) {
    return MPI_Ialltoall(in_buffer(sendbuf), *sendcount, type_of(sendtype), out_buffer(recvbuf), *recvcount,
                         type_of(recvtype), comm_of(comm), r);
  });
}

HPCOLL_PMPI_EXPORT void mpi_ialltoallv_(const void* sendbuf, const MPI_Fint* sendcounts, const MPI_Fint* sdispls,
                                        const MPI_Fint* sendtype, void* recvbuf, const MPI_Fint* recvcounts,
                                        const MPI_Fint* rdispls, const MPI_Fint* recvtype, const MPI_Fint* comm,
                                        MPI_Fint* request, MPI_Fint* ierr) {
  start(request, ierr, [&](MPI_Request* r) {
    return MPI_Ialltoallv(in_buffer(sendbuf), sendcounts, sdispls, type_of(sendtype), out_buffer(recvbuf), recvcounts,
                          rdispls, type_of(recvtype), comm_of(comm), r);
  });
}

// The completion calls a Fortran program waits in: the library's, so that
// the waiting thread advances the served runs as a C program's does.

HPCOLL_PMPI_EXPORT void mpi_wait_(MPI_Fint* request, MPI_Fint* status, MPI_Fint* ierr) {
  MPI_Request r = PMPI_Request_f2c(*request);
  MPI_Status s;
  const int code = MPI_Wait(&r, &s);
  set(ierr, code);
  if (code != MPI_SUCCESS) return;
  *request = PMPI_Request_c2f(r);
  if (!status_ignored(status)) PMPI_Status_c2f(&s, status);
}

HPCOLL_PMPI_EXPORT void mpi_test_(MPI_Fint* request, MPI_Fint* flag, MPI_Fint* status, MPI_Fint* ierr) {
  MPI_Request r = PMPI_Request_f2c(*request);
  MPI_Status s;
  int done = 0;
  const int code = MPI_Test(&r, &done, &s);
  set(ierr, code);
  if (code != MPI_SUCCESS) return;
  *flag = done;  // Open MPI's .true. is 1
  *request = PMPI_Request_c2f(r);
  if (done && !status_ignored(status)) PMPI_Status_c2f(&s, status);
}

HPCOLL_PMPI_EXPORT void mpi_waitall_(const MPI_Fint* count, MPI_Fint* requests, MPI_Fint* statuses, MPI_Fint* ierr) {
  request_array c(*count, requests);
  const int code = MPI_Waitall(*count, c.requests.data(), c.statuses.data());
  set(ierr, code);
  if (code == MPI_SUCCESS || code == MPI_ERR_IN_STATUS) c.hand_back(requests, statuses);
}

HPCOLL_PMPI_EXPORT void mpi_testall_(const MPI_Fint* count, MPI_Fint* requests, MPI_Fint* flag, MPI_Fint* statuses,
                                     MPI_Fint* ierr) {
  request_array c(*count, requests);
  int done = 0;
  const int code = MPI_Testall(*count, c.requests.data(), &done, c.statuses.data());
  set(ierr, code);
  if (code != MPI_SUCCESS && code != MPI_ERR_IN_STATUS) return;
  *flag = done;
  if (done) c.hand_back(requests, statuses);
}

HPCOLL_PMPI_EXPORT void mpi_waitany_(const MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index, MPI_Fint* status,
                                     MPI_Fint* ierr) {
  request_array c(*count, requests);
  MPI_Status s;
  int c_index = MPI_UNDEFINED;
  const int code = MPI_Waitany(*count, c.requests.data(), &c_index, &s);
  set(ierr, code);
  if (code != MPI_SUCCESS) return;
  *index = c.hand_back_one(requests, c_index);
  if (!status_ignored(status)) PMPI_Status_c2f(&s, status);
}

HPCOLL_PMPI_EXPORT void mpi_testany_(const MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index, MPI_Fint* flag,
                                     MPI_Fint* status, MPI_Fint* ierr) {
  request_array c(*count, requests);
  MPI_Status s;
  int c_index = MPI_UNDEFINED;
  int done = 0;
  const int code = MPI_Testany(*count, c.requests.data(), &c_index, &done, &s);
  set(ierr, code);
  if (code != MPI_SUCCESS) return;
  *flag = done;
  *index = done ? c.hand_back_one(requests, c_index) : MPI_UNDEFINED;
  if (done && !status_ignored(status)) PMPI_Status_c2f(&s, status);
}

HPCOLL_PMPI_EXPORT void mpi_waitsome_(const MPI_Fint* incount, MPI_Fint* requests, MPI_Fint* outcount,
                                      MPI_Fint* indices, MPI_Fint* statuses, MPI_Fint* ierr) {
  complete_some(MPI_Waitsome, incount, requests, outcount, indices, statuses, ierr);
}

HPCOLL_PMPI_EXPORT void mpi_testsome_(const MPI_Fint* incount, MPI_Fint* requests, MPI_Fint* outcount,
                                      MPI_Fint* indices, MPI_Fint* statuses, MPI_Fint* ierr) {
  complete_some(MPI_Testsome, incount, requests, outcount, indices, statuses, ierr);
}

// The request stays as it is (MPI_REQUEST_GET_STATUS neither frees nor completes it).
HPCOLL_PMPI_EXPORT void mpi_request_get_status_(const MPI_Fint* request, MPI_Fint* flag, MPI_Fint* status,
                                                MPI_Fint* ierr) {
  MPI_Status s;
  int done = 0;
  const int code = MPI_Request_get_status(PMPI_Request_f2c(*request), &done, &s);
  set(ierr, code);
  if (code != MPI_SUCCESS) return;
  *flag = done;
  if (done && !status_ignored(status)) PMPI_Status_c2f(&s, status);
}

// MPI_REQUEST_FREE refuses a served run's request, as from C.
HPCOLL_PMPI_EXPORT void mpi_request_free_(MPI_Fint* request, MPI_Fint* ierr) {
  MPI_Request r = PMPI_Request_f2c(*request);
  const int code = MPI_Request_free(&r);
  set(ierr, code);
  if (code == MPI_SUCCESS) *request = PMPI_Request_c2f(r);
}

// Open MPI's MPI_INIT and MPI_INIT_THREAD call PMPI_Init: these take their
// place, so that HPCOLL_PMPI_THREAD=multiple applies to Fortran programs.
HPCOLL_PMPI_EXPORT void mpi_init_(MPI_Fint* ierr) { set(ierr, MPI_Init(nullptr, nullptr)); }

HPCOLL_PMPI_EXPORT void mpi_init_thread_(const MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  int c_provided = MPI_THREAD_SINGLE;
  const int code = MPI_Init_thread(nullptr, nullptr, *required, &c_provided);
  set(ierr, code);
  if (code == MPI_SUCCESS) *provided = c_provided;
}

// The summary of HPCOLL_VERBOSE=1 is printed by the library's MPI_Finalize.
HPCOLL_PMPI_EXPORT void mpi_finalize_(MPI_Fint* ierr) { set(ierr, MPI_Finalize()); }

// `use mpi_f08` passes the same arguments under other names: buffers by
// address, each handle one integer (its MPI_VAL), ierror null when left out.
#define HPCOLL_PMPI_F08(name) HPCOLL_PMPI_EXPORT decltype(name##_) name##_f08_ [[gnu::alias(#name "_")]];
HPCOLL_PMPI_F08(mpi_bcast)
HPCOLL_PMPI_F08(mpi_reduce)
HPCOLL_PMPI_F08(mpi_allreduce)
HPCOLL_PMPI_F08(mpi_reduce_scatter_block)
HPCOLL_PMPI_F08(mpi_gather)
HPCOLL_PMPI_F08(mpi_gatherv)
HPCOLL_PMPI_F08(mpi_scatter)
HPCOLL_PMPI_F08(mpi_allgather)
HPCOLL_PMPI_F08(mpi_allgatherv)
HPCOLL_PMPI_F08(mpi_alltoall)
HPCOLL_PMPI_F08(mpi_alltoallv)
HPCOLL_PMPI_F08(mpi_ibcast)
HPCOLL_PMPI_F08(mpi_ireduce)
HPCOLL_PMPI_F08(mpi_iallreduce)
HPCOLL_PMPI_F08(mpi_ireduce_scatter_block)
HPCOLL_PMPI_F08(mpi_igather)
HPCOLL_PMPI_F08(mpi_igatherv)
HPCOLL_PMPI_F08(mpi_iscatter)
HPCOLL_PMPI_F08(mpi_iallgather)
HPCOLL_PMPI_F08(mpi_iallgatherv)
HPCOLL_PMPI_F08(mpi_ialltoall)
HPCOLL_PMPI_F08(mpi_ialltoallv)
HPCOLL_PMPI_F08(mpi_wait)
HPCOLL_PMPI_F08(mpi_test)
HPCOLL_PMPI_F08(mpi_waitall)
HPCOLL_PMPI_F08(mpi_testall)
HPCOLL_PMPI_F08(mpi_waitany)
HPCOLL_PMPI_F08(mpi_testany)
HPCOLL_PMPI_F08(mpi_waitsome)
HPCOLL_PMPI_F08(mpi_testsome)
HPCOLL_PMPI_F08(mpi_request_get_status)
HPCOLL_PMPI_F08(mpi_request_free)
HPCOLL_PMPI_F08(mpi_init)
HPCOLL_PMPI_F08(mpi_init_thread)
HPCOLL_PMPI_F08(mpi_finalize)

#endif
