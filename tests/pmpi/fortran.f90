! SPDX-License-Identifier: BSD-3-Clause
! A Fortran program against the MPI standard only: Open MPI's Fortran
! bindings call the PMPI_ functions, so with libhpcoll_mpi preloaded it must
! still be right (docs/pmpi.md, "Fortran"). Exits 1 when a check fails.
program conformance_fortran
  use mpi
  implicit none
  integer :: ierr, rank, p, root, i, failures, all_failures
  integer :: total, value
  integer, allocatable :: gathered(:), blocks(:)
  double precision :: largest

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  failures = 0
  allocate(gathered(p), blocks(p))

  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= p * (p - 1) / 2) failures = failures + 1
  total = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_PROD, MPI_COMM_WORLD, ierr)
  if (total /= product([(i, i = 1, p)])) failures = failures + 1
  call MPI_Allreduce(dble(rank), largest, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (largest /= dble(p - 1)) failures = failures + 1
  do root = 0, p - 1
    value = -1
    if (rank == root) value = 100 + root
    call MPI_Bcast(value, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    if (value /= 100 + root) failures = failures + 1
    gathered = -1
    call MPI_Gather(rank * 10, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    if (rank == root) then
      if (any(gathered /= [(i * 10, i = 0, p - 1)])) failures = failures + 1
    end if
  end do
  blocks = [(rank * 100 + i, i = 0, p - 1)]
  call MPI_Alltoall(blocks, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (any(gathered /= [(i * 100 + rank, i = 0, p - 1)])) failures = failures + 1

  call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a, i0, a)', 'conformance (Fortran): ', p, ' ranks, ', all_failures, ' failed checks'
  call MPI_Finalize(ierr)
  if (all_failures /= 0) stop 1
end program conformance_fortran
