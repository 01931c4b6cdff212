// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/verify.hpp> of hpcoll 0.1 is now <hpcoll/analysis/verify.hpp> and <hpcoll/mcast/verify.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/analysis/verify.hpp>
#include <hpcoll/mcast/verify.hpp>
