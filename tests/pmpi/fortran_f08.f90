! SPDX-License-Identifier: BSD-3-Clause
! `use mpi_f08` (handles of derived types, ierror left out), checked by its
! own oracle: with libhpcoll_mpi preloaded its collectives go through the
! library (docs/pmpi.md, "Fortran"). Exits 1 when a check fails.
program conformance_fortran_f08
  use mpi_f08
  implicit none
  integer :: rank, p, root, i, failures, all_failures, total, value
  integer, allocatable :: blocks(:), received(:), counts(:), displs(:)
  type(MPI_Comm) :: dup

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, p)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  failures = 0
  allocate(blocks(p), received(p), counts(p), displs(p))

  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, dup)
  if (total /= p * (p - 1) / 2) failures = failures + 1
  total = rank
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_MAX, dup)
  if (total /= p - 1) failures = failures + 1
  do root = 0, p - 1
    value = -1
    if (rank == root) value = root + 5
    call MPI_Bcast(value, 1, MPI_INTEGER, root, dup)
    if (value /= root + 5) failures = failures + 1
  end do
  blocks = [(rank * 100 + i, i = 0, p - 1)]
  counts = 1
  displs = [(i, i = 0, p - 1)]
  call MPI_Alltoallv(blocks, counts, displs, MPI_INTEGER, received, counts, displs, MPI_INTEGER, dup)
  if (any(received /= [(i * 100 + rank, i = 0, p - 1)])) failures = failures + 1
  value = rank * 3
  received = -1
  call MPI_Allgatherv(value, 1, MPI_INTEGER, received, counts, displs, MPI_INTEGER, dup)
  if (any(received /= [(i * 3, i = 0, p - 1)])) failures = failures + 1

  call MPI_Comm_free(dup)
  call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a, i0, a)', 'conformance (Fortran 2008): ', p, ' ranks, ', all_failures, &
                       ' failed checks'
  call MPI_Finalize()
  if (all_failures /= 0) stop 1
end program conformance_fortran_f08
