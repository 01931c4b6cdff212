// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/machine.hpp> of hpcoll 0.1 is now <hpcoll/plan/machine.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/plan/machine.hpp>
