// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/bcast.hpp> of hpcoll 0.1 is now <hpcoll/collectives/bcast.hpp> and <hpcoll/select/automatic.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/collectives/bcast.hpp>
#include <hpcoll/select/automatic.hpp>
