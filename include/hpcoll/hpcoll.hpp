// SPDX-License-Identifier: BSD-3-Clause
// hpcoll — MPI collectives with schedules as policies. The umbrella header:
// every collective with its free functions (the run-time choice of schedule,
// schedule::automatic), every schedule, nonblocking and persistent requests,
// the dynamic multicast, the cost model and the dispatcher's inputs.
// Not included: the analysis tools (analysis/verify.hpp, analysis/simulate.hpp,
// mcast/verify.hpp) and writing machine files (select/machine_file_save.hpp).
#pragma once

#include "collectives/allgather.hpp"
#include "collectives/allgatherv.hpp"
#include "collectives/allreduce.hpp"
#include "collectives/alltoall.hpp"
#include "collectives/alltoallv.hpp"
#include "collectives/bcast.hpp"
#include "collectives/gather.hpp"
#include "collectives/gatherv.hpp"
#include "collectives/reduce.hpp"
#include "collectives/reduce_scatter_block.hpp"
#include "collectives/scatter.hpp"
#include "communicator.hpp"
#include "datatype.hpp"
#include "error.hpp"
#include "exec/counters.hpp"
#include "mcast/mcast.hpp"
#include "op.hpp"
#include "policies.hpp"
#include "progress.hpp"
#include "request.hpp"
#include "schedule/all.hpp"
#include "select/automatic.hpp"
#include "select/cost.hpp"
#include "select/dispatch.hpp"
#include "select/machine_file.hpp"
#include "select/tuning.hpp"
#include "version.hpp"
