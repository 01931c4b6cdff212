// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/simulate.hpp> of hpcoll 0.1 is now <hpcoll/analysis/simulate.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/analysis/simulate.hpp>
