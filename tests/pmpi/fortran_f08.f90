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
  ! The buffers of the nonblocking forms (their values change in MPI_Wait and kin).
  integer, asynchronous :: sent, reduced, from_next
  integer, allocatable, asynchronous :: outgoing(:), incoming(:)
  type(MPI_Request) :: requests(2)
  type(MPI_Status) :: status, statuses(2)
  logical :: done
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: library
  integer :: which, outcount, indices(2), completed(2)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, p)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  failures = 0
  allocate(blocks(p), received(p), counts(p), displs(p), outgoing(p), incoming(p))

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

  ! Nonblocking forms, completed by MPI_Wait, MPI_Waitall, MPI_Test, MPI_Waitany and MPI_Testsome.
  sent = rank + 1
  call MPI_Iallreduce(sent, reduced, 1, MPI_INTEGER, MPI_SUM, dup, requests(1))
  call MPI_Wait(requests(1), MPI_STATUS_IGNORE)
  if (reduced /= p * (p + 1) / 2) failures = failures + 1
  outgoing = [(rank * 100 + i, i = 0, p - 1)]
  incoming = -1
  call MPI_Ialltoallv(outgoing, counts, displs, MPI_INTEGER, incoming, counts, displs, MPI_INTEGER, dup, requests(1))
  call MPI_Ibcast(sent, 1, MPI_INTEGER, p - 1, dup, requests(2))
  call MPI_Waitall(2, requests, statuses)
  if (any(incoming /= [(i * 100 + rank, i = 0, p - 1)]) .or. sent /= p) failures = failures + 1
  incoming = -1
  call MPI_Iallgather(sent, 1, MPI_INTEGER, incoming, 1, MPI_INTEGER, dup, requests(1))
  done = .false.
  do while (.not. done)
    call MPI_Test(requests(1), done, status)
  end do
  if (any(incoming /= p)) failures = failures + 1

  ! MPI_Waitany and MPI_Testsome over a collective and a receive from the next
  ! rank. Not under MPICH 4.0.2, whose mpi_f08 bindings fail these index checks.
  call MPI_Get_library_version(library, i)
  if (index(library, 'MPICH') == 0) then
    call MPI_Iallreduce(sent, reduced, 1, MPI_INTEGER, MPI_MAX, dup, requests(1))
    call MPI_Irecv(from_next, 1, MPI_INTEGER, modulo(rank + 1, p), 5, dup, requests(2))
    call MPI_Send(rank, 1, MPI_INTEGER, modulo(rank - 1, p), 5, dup)
    completed = 0
    do i = 1, 2
      call MPI_Waitany(2, requests, which, status)
      if (which < 1 .or. which > 2) then
        failures = failures + 1
      else
        completed(which) = completed(which) + 1
        if (which == 2 .and. (status%MPI_SOURCE /= modulo(rank + 1, p) .or. status%MPI_TAG /= 5)) failures = failures + 1
      end if
    end do
    if (any(completed /= 1) .or. reduced /= p .or. from_next /= modulo(rank + 1, p)) failures = failures + 1
    sent = rank + 40
    call MPI_Ibcast(sent, 1, MPI_INTEGER, 0, dup, requests(1))
    completed = 0
    do while (requests(1) /= MPI_REQUEST_NULL)
      call MPI_Testsome(2, requests, outcount, indices, statuses)
      do i = 1, outcount
        if (indices(i) == 1) completed(1) = completed(1) + 1
      end do
    end do
    if (completed(1) /= 1 .or. sent /= 40) failures = failures + 1
    call MPI_Testsome(2, requests, outcount, indices, statuses)
    if (outcount /= MPI_UNDEFINED) failures = failures + 1
  end if

  call MPI_Comm_free(dup)
  call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a, i0, a)', 'conformance (Fortran 2008): ', p, ' ranks, ', all_failures, &
                       ' failed checks'
  deallocate(blocks, received, counts, displs, outgoing, incoming)
  call MPI_Finalize()
  if (all_failures /= 0) stop 1
end program conformance_fortran_f08
