// Every schedule hpcoll ships.
#pragma once

#include "schedule/binomial.hpp"
#include "schedule/bruck.hpp"
#include "schedule/compose.hpp"
#include "schedule/linear.hpp"
#include "schedule/linear_sync.hpp"
#include "schedule/pairwise.hpp"
#include "schedule/recursive_doubling.hpp"
#include "schedule/recursive_halving.hpp"
#include "schedule/ring.hpp"
#include "schedule/segmented_ring.hpp"

namespace hpcoll::schedule {

/// MPICH's names for the two van de Geijn broadcasts.
using scatter_ring_allgather = scatter_allgather<binomial, ring>;
using scatter_recursive_doubling_allgather = scatter_allgather<binomial, recursive_doubling>;

}  // namespace hpcoll::schedule
