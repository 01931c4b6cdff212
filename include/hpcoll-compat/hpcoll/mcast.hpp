// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/mcast.hpp> of hpcoll 0.1 is now <hpcoll/mcast/mcast.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/mcast/mcast.hpp>
