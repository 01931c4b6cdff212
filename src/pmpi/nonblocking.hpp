// SPDX-License-Identifier: BSD-3-Clause
// The served nonblocking collectives behind MPI_Requests: each started run
// gets a generalized request (MPI_Grequest_start), which MPI_Wait, MPI_Test
// and their kin complete once the library's progress thread has finished the
// run. The thread advances every run in flight whatever the program is
// doing, so a rank blocked in another MPI call never stalls the others; it
// needs MPI_THREAD_MULTIPLE.
#pragma once

#include <mpi.h>

#include <memory>

#include <hpcoll/communicator.hpp>

#include "served_call.hpp"

namespace hpcoll::pmpi {

/// Hands a started run to the progress thread and sets `*request` to the
/// MPI_Request that completes with it; an MPI error code if MPI could not
/// make the request (the run has then been waited for).
int complete_later(std::unique_ptr<pending_collective> pending, MPI_Request* request);

/// Blocks until no served nonblocking collective on `c` is in flight (the
/// program may free a communicator while operations on it are pending).
void await_collectives_on(const communicator* c);

/// At MPI_Finalize: waits for the runs in flight and stops the progress thread.
void stop_progress();

}  // namespace hpcoll::pmpi
