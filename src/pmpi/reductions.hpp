// SPDX-License-Identifier: BSD-3-Clause
// hpcoll's reductions on buffers described by an element type and an op
// known at run time, one translation unit each (they instantiate every
// served (type, op) pair). Each runs or starts the reduction through `call`
// and returns true, or returns false, having run nothing, where MPI does not
// define the op on the type; `in` is nullptr for MPI_IN_PLACE.
#pragma once

#include <cstddef>

#include <hpcoll/communicator.hpp>

#include "datatypes.hpp"
#include "served_call.hpp"

namespace hpcoll::pmpi {

/// n elements per rank.
bool allreduce(const served_call& call, const communicator& c, element e, reduction_op op, const void* in, void* out, std::size_t n);
/// n elements per rank; out is significant at the root only.
bool reduce(const served_call& call, const communicator& c, element e, reduction_op op, const void* in, void* out, std::size_t n, int root);
/// n elements per block, one block per rank.
bool reduce_scatter_block(const served_call& call, const communicator& c, element e, reduction_op op, const void* in,
                          void* out, std::size_t n);

}  // namespace hpcoll::pmpi
