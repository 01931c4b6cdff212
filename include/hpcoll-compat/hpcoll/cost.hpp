// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/cost.hpp> of hpcoll 0.1 is now <hpcoll/select/cost.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/select/cost.hpp>
