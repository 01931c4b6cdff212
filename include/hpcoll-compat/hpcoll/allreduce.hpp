// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/allreduce.hpp> of hpcoll 0.1 is now <hpcoll/collectives/allreduce.hpp> and <hpcoll/select/automatic.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/collectives/allreduce.hpp>
#include <hpcoll/select/automatic.hpp>
