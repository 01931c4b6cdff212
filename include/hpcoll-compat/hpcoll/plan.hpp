// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/plan.hpp> of hpcoll 0.1 is now <hpcoll/plan/plan.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/plan/plan.hpp>
