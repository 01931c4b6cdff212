// SPDX-License-Identifier: BSD-3-Clause
// Interoperation with Boost.MPI: the only hpcoll header that includes it.
#pragma once

#include <boost/mpi/communicator.hpp>

#include "communicator.hpp"

namespace hpcoll {

/// Lets `hpcoll::communicator c(world);` take a boost::mpi::communicator.
template <>
struct communicator_source<boost::mpi::communicator> {
  static MPI_Comm native(const boost::mpi::communicator& comm) { return MPI_Comm(comm); }
};

}  // namespace hpcoll
