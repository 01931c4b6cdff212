! SPDX-License-Identifier: BSD-3-Clause
! A Fortran program against the MPI standard only (mpif.h's bindings, through
! `use mpi`), checked by its own oracle: with libhpcoll_mpi preloaded its
! collectives go through the library (docs/pmpi.md, "Fortran"). Exits 1 when
! a check fails.
program conformance_fortran
  use mpi
  implicit none
  integer :: ierr, rank, p, root, i, failures, all_failures
  integer :: total, value
  integer :: pair(2), best(2)
  integer, allocatable :: gathered(:), blocks(:), counts(:), displs(:)
  double precision :: largest
  double complex :: z, z_sum

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  failures = 0
  allocate(gathered(p), blocks(p), counts(p), displs(p))

  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(total == p * (p - 1) / 2)
  total = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_PROD, MPI_COMM_WORLD, ierr)
  call check(total == product([(i, i = 1, p)]))
  call MPI_Allreduce(dble(rank), largest, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(largest == dble(p - 1))
  z = dcmplx(rank, 1)
  call MPI_Allreduce(z, z_sum, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(z_sum == dcmplx(p * (p - 1) / 2, p))
  pair = [mod(rank, 2), rank]
  call MPI_Allreduce(pair, best, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check(best(1) == min(p - 1, 1) .and. best(2) == min(p - 1, 1))
  blocks = 1
  call MPI_Reduce_scatter_block(blocks, value, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(value == p)
  do root = 0, p - 1
    value = -1
    if (rank == root) value = 100 + root
    call MPI_Bcast(value, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    call check(value == 100 + root)
    total = rank
    if (rank == root) then
      call MPI_Reduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
      call check(total == p * (p - 1) / 2)
    else
      call MPI_Reduce(total, value, 1, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
    end if
    gathered = -1
    call MPI_Gather(rank * 10, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    if (rank == root) call check(all(gathered == [(i * 10, i = 0, p - 1)]))
    counts = 1
    displs = [(p - 1 - i, i = 0, p - 1)]
    gathered = -1
    call MPI_Gatherv(rank, 1, MPI_INTEGER, gathered, counts, displs, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    if (rank == root) call check(all(gathered == [(p - 1 - i, i = 0, p - 1)]))
    blocks = [(root * 100 + i, i = 0, p - 1)]
    call MPI_Scatter(blocks, 1, MPI_INTEGER, value, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    call check(value == root * 100 + rank)
  end do
  gathered = -1
  gathered(rank + 1) = rank * 7
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(gathered == [(i * 7, i = 0, p - 1)]))
  blocks = [(rank * 100 + i, i = 0, p - 1)]
  call MPI_Alltoall(blocks, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(gathered == [(i * 100 + rank, i = 0, p - 1)]))
  counts = 1
  displs = [(i, i = 0, p - 1)]
  call MPI_Alltoallv(blocks, counts, displs, MPI_INTEGER, gathered, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(gathered == [(i * 100 + rank, i = 0, p - 1)]))
  value = rank * 3
  gathered = -1
  call MPI_Allgatherv(value, 1, MPI_INTEGER, gathered, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(gathered == [(i * 3, i = 0, p - 1)]))

  call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a, i0, a)', 'conformance (Fortran): ', p, ' ranks, ', all_failures, ' failed checks'
  call MPI_Finalize(ierr)
  if (all_failures /= 0) stop 1

contains

  subroutine check(holds)
    logical, intent(in) :: holds
    if (.not. holds) then
      failures = failures + 1
      print '(a, i0, a, i0)', 'rank ', rank, ': failed check ', failures
    end if
  end subroutine check
end program conformance_fortran
