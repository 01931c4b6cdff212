// SPDX-License-Identifier: BSD-3-Clause
// The Fortran entry points of mpif.h, `use mpi` and `use mpi_f08`, for Open
// MPI: its own (libmpi_mpifh, libmpi_usempif08) call the PMPI_ functions,
// out of the library's reach, so these take their place and call the
// library's MPI_ functions. gfortran's names (lower case, one trailing
// underscore) (docs/pmpi.md, "Fortran").
#include <mpi.h>

#if defined(OPEN_MPI)

#include <type_traits>

#define HPCOLL_PMPI_EXPORT extern "C" [[gnu::visibility("default")]]

// Open MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM: common blocks whose
// addresses a Fortran program passes.
extern "C" char mpi_fortran_in_place_;
extern "C" char mpi_fortran_bottom_;

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
HPCOLL_PMPI_F08(mpi_finalize)

#endif
