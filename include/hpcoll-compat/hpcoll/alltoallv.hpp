// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/alltoallv.hpp> of hpcoll 0.1 is now <hpcoll/collectives/alltoallv.hpp> and <hpcoll/select/automatic.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/collectives/alltoallv.hpp>
#include <hpcoll/select/automatic.hpp>
