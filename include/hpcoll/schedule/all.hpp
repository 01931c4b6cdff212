// SPDX-License-Identifier: BSD-3-Clause
// Every schedule hpcoll ships.
#pragma once

#include "binomial.hpp"
#include "bruck.hpp"
#include "compose.hpp"
#include "hierarchical.hpp"
#include "knomial.hpp"
#include "linear.hpp"
#include "linear_sync.hpp"
#include "pairwise.hpp"
#include "recursive_doubling.hpp"
#include "recursive_halving.hpp"
#include "reduce_scatter_gather.hpp"
#include "ring.hpp"
#include "segmented_ring.hpp"
#include "segmented_tree.hpp"

namespace hpcoll::schedule {

/// MPICH's names for the two van de Geijn broadcasts.
using scatter_ring_allgather = scatter_allgather<binomial, ring>;
using scatter_recursive_doubling_allgather = scatter_allgather<binomial, recursive_doubling>;

}  // namespace hpcoll::schedule
