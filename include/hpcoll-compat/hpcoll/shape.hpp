// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/shape.hpp> of hpcoll 0.1 is now <hpcoll/plan/shape.hpp> and <hpcoll/mcast/plan.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/plan/shape.hpp>
#include <hpcoll/mcast/plan.hpp>
