// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/alltoall.hpp> of hpcoll 0.1 is now <hpcoll/collectives/alltoall.hpp> and <hpcoll/select/automatic.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/collectives/alltoall.hpp>
#include <hpcoll/select/automatic.hpp>
