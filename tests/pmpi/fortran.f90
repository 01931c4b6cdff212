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
  ! The buffers of the nonblocking forms (their values change in MPI_WAIT and kin).
  integer, asynchronous :: received, maximum, sent
  integer, asynchronous :: from_next
  integer :: requests(3), status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 3)
  integer :: which, outcount, indices(3), completed(3)
  logical :: done, mpich
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: library
  integer :: pair(2), best(2)
  integer, allocatable :: gathered(:), blocks(:), counts(:), displs(:)
  integer, allocatable, asynchronous :: outgoing(:), incoming(:)
  double precision :: largest
  double complex :: z, z_sum

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  failures = 0
  allocate(gathered(p), blocks(p), counts(p), displs(p))
  call MPI_Get_library_version(library, i, ierr)
  mpich = index(library, 'MPICH') > 0

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

  ! The nonblocking forms, completed by MPI_WAIT, MPI_WAITALL, MPI_TEST and
  ! MPI_TESTALL, with and without statuses, and by the other completion calls.
  allocate(outgoing(p), incoming(p))
  sent = rank
  call MPI_Iallreduce(sent, received, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Wait(requests(1), status, ierr)
  call check(received == p * (p - 1) / 2 .and. requests(1) == MPI_REQUEST_NULL)
  do root = 0, p - 1
    received = -1
    if (rank == root) received = 200 + root
    call MPI_Ibcast(received, 1, MPI_INTEGER, root, MPI_COMM_WORLD, requests(1), ierr)
    sent = rank
    call MPI_Ireduce(sent, maximum, 1, MPI_INTEGER, MPI_MAX, root, MPI_COMM_WORLD, requests(2), ierr)
    outgoing = rank * 5
    incoming = -1
    call MPI_Igather(outgoing, 1, MPI_INTEGER, incoming, 1, MPI_INTEGER, root, MPI_COMM_WORLD, requests(3), ierr)
    call MPI_Waitall(3, requests, MPI_STATUSES_IGNORE, ierr)
    call check(received == 200 + root .and. all(requests == MPI_REQUEST_NULL))
    if (rank == root) call check(maximum == p - 1 .and. all(incoming == [(i * 5, i = 0, p - 1)]))
    counts = 1
    displs = [(p - 1 - i, i = 0, p - 1)]
    sent = rank
    incoming = -1
    call MPI_Igatherv(sent, 1, MPI_INTEGER, incoming, counts, displs, MPI_INTEGER, root, MPI_COMM_WORLD, &
                      requests(1), ierr)
    outgoing = [(root * 10 + i, i = 0, p - 1)]
    call MPI_Iscatter(outgoing, 1, MPI_INTEGER, received, 1, MPI_INTEGER, root, MPI_COMM_WORLD, requests(2), ierr)
    call MPI_Waitall(2, requests, statuses, ierr)
    if (rank == root) call check(all(incoming == [(p - 1 - i, i = 0, p - 1)]))
    call check(received == root * 10 + rank)
  end do
  outgoing = 2
  call MPI_Ireduce_scatter_block(outgoing, received, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, requests(1), ierr)
  sent = rank + 1
  incoming = -1
  call MPI_Iallgather(sent, 1, MPI_INTEGER, incoming, 1, MPI_INTEGER, MPI_COMM_WORLD, requests(2), ierr)
  done = .false.
  do while (.not. done)
    call MPI_Testall(2, requests, done, MPI_STATUSES_IGNORE, ierr)
  end do
  call check(received == 2 * p .and. all(incoming == [(i + 1, i = 0, p - 1)]))
  outgoing = [(rank * 100 + i, i = 0, p - 1)]
  call MPI_Ialltoall(outgoing, 1, MPI_INTEGER, incoming, 1, MPI_INTEGER, MPI_COMM_WORLD, requests(1), ierr)
  done = .false.
  do while (.not. done)
    call MPI_Test(requests(1), done, MPI_STATUS_IGNORE, ierr)
  end do
  call check(all(incoming == [(i * 100 + rank, i = 0, p - 1)]))
  counts = 1
  displs = [(i, i = 0, p - 1)]
  incoming = -1
  call MPI_Ialltoallv(outgoing, counts, displs, MPI_INTEGER, incoming, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, &
                      requests(1), ierr)
  call MPI_Wait(requests(1), MPI_STATUS_IGNORE, ierr)
  call check(all(incoming == [(i * 100 + rank, i = 0, p - 1)]))
  sent = rank * 9
  incoming = -1
  call MPI_Iallgatherv(sent, 1, MPI_INTEGER, incoming, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Wait(requests(1), MPI_STATUS_IGNORE, ierr)
  call check(all(incoming == [(i * 9, i = 0, p - 1)]))
  ! MPI_WAITANY, MPI_TESTSOME, MPI_REQUEST_GET_STATUS, MPI_TESTANY and
  ! MPI_WAITSOME: Fortran's 1-based indices, each request completed once and
  ! nulled, MPI_UNDEFINED once none is active; a receive from the next rank
  ! among the collectives names its source and tag in its status. Not under
  ! MPICH 4.0.2, whose Fortran MPI_WAITANY and MPI_TESTANY return
  ! MPI_UNDEFINED + 1 when no request is active.
  if (.not. mpich) then
    sent = rank
    call MPI_Iallreduce(sent, received, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, requests(1), ierr)
    call MPI_Irecv(from_next, 1, MPI_INTEGER, modulo(rank + 1, p), 7, MPI_COMM_WORLD, requests(2), ierr)
    outgoing = rank + 1
    incoming = -1
    call MPI_Iallgather(outgoing, 1, MPI_INTEGER, incoming, 1, MPI_INTEGER, MPI_COMM_WORLD, requests(3), ierr)
    call MPI_Send(rank, 1, MPI_INTEGER, modulo(rank - 1, p), 7, MPI_COMM_WORLD, ierr)
    completed = 0
    do i = 1, 3
      call MPI_Waitany(3, requests, which, status, ierr)
      call check(which >= 1 .and. which <= 3)
      if (which >= 1 .and. which <= 3) then
        completed(which) = completed(which) + 1
        call check(requests(which) == MPI_REQUEST_NULL)
        if (which == 2) call check(status(MPI_SOURCE) == modulo(rank + 1, p) .and. status(MPI_TAG) == 7)
      end if
    end do
    call check(all(completed == 1) .and. ierr == MPI_SUCCESS)
    call check(received == p * (p - 1) / 2 .and. from_next == modulo(rank + 1, p))
    call check(all(incoming == [(i + 1, i = 0, p - 1)]))
    call MPI_Waitany(3, requests, which, status, ierr)
    call check(which == MPI_UNDEFINED)

    received = -1
    if (rank == p - 1) received = 300
    call MPI_Ibcast(received, 1, MPI_INTEGER, p - 1, MPI_COMM_WORLD, requests(1), ierr)
    call MPI_Irecv(from_next, 1, MPI_INTEGER, modulo(rank + 1, p), 8, MPI_COMM_WORLD, requests(2), ierr)
    call MPI_Ireduce(sent, maximum, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, requests(3), ierr)
    call MPI_Send(rank * 2, 1, MPI_INTEGER, modulo(rank - 1, p), 8, MPI_COMM_WORLD, ierr)
    completed = 0
    do while (any(requests /= MPI_REQUEST_NULL))
      call MPI_Testsome(3, requests, outcount, indices, statuses, ierr)
      do i = 1, outcount
        which = indices(i)
        call check(which >= 1 .and. which <= 3)
        if (which >= 1 .and. which <= 3) completed(which) = completed(which) + 1
        if (which == 2) call check(statuses(MPI_SOURCE, i) == modulo(rank + 1, p) .and. statuses(MPI_TAG, i) == 8)
      end do
    end do
    call check(all(completed == 1) .and. received == 300 .and. from_next == 2 * modulo(rank + 1, p))
    if (rank == 0) call check(maximum == p - 1)
    call MPI_Testsome(3, requests, outcount, indices, statuses, ierr)
    call check(outcount == MPI_UNDEFINED)

    outgoing = [(rank * 100 + i, i = 0, p - 1)]
    incoming = -1
    call MPI_Ialltoall(outgoing, 1, MPI_INTEGER, incoming, 1, MPI_INTEGER, MPI_COMM_WORLD, requests(2), ierr)
    done = .false.
    do while (.not. done)
      call MPI_Request_get_status(requests(2), done, status, ierr)
    end do
    call check(requests(2) /= MPI_REQUEST_NULL)
    call MPI_Testany(3, requests, which, done, MPI_STATUS_IGNORE, ierr)
    call check(done .and. which == 2 .and. requests(2) == MPI_REQUEST_NULL)
    call check(all(incoming == [(i * 100 + rank, i = 0, p - 1)]))
    call MPI_Testany(3, requests, which, done, status, ierr)
    call check(done .and. which == MPI_UNDEFINED)

    outgoing = 3
    call MPI_Ireduce_scatter_block(outgoing, received, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, requests(3), ierr)
    sent = rank * 4
    incoming = -1
    call MPI_Iallgatherv(sent, 1, MPI_INTEGER, incoming, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, requests(1), ierr)
    completed = 0
    do while (any(requests /= MPI_REQUEST_NULL))
      call MPI_Waitsome(3, requests, outcount, indices, MPI_STATUSES_IGNORE, ierr)
      call check(outcount >= 1 .and. outcount <= 2)
      do i = 1, outcount
        which = indices(i)
        if (which >= 1 .and. which <= 3) completed(which) = completed(which) + 1
      end do
    end do
    call check(all(completed == [1, 0, 1]) .and. received == 3 * p .and. all(incoming == [(i * 4, i = 0, p - 1)]))
    call MPI_Waitsome(3, requests, outcount, indices, statuses, ierr)
    call check(outcount == MPI_UNDEFINED)
  end if

  ! The standard forbids freeing a nonblocking collective's request: under
  ! MPI_ERRORS_RETURN an error, the request left to MPI_WAIT (Open MPI frees
  ! one that has completed, as at one rank: let be).
  sent = rank
  call MPI_Iallreduce(sent, received, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Request_free(requests(1), ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, i)
  if (ierr /= MPI_SUCCESS) then
    call check(requests(1) /= MPI_REQUEST_NULL)
    call MPI_Wait(requests(1), MPI_STATUS_IGNORE, ierr)
    call check(received == p * (p - 1) / 2)
  end if

  call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a, i0, a)', 'conformance (Fortran): ', p, ' ranks, ', all_failures, ' failed checks'
  deallocate(gathered, blocks, counts, displs, outgoing, incoming)
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
