// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/rank_set.hpp> of hpcoll 0.1 is now <hpcoll/mcast/rank_set.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/mcast/rank_set.hpp>
