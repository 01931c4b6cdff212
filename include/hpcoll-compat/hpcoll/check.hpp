// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/check.hpp> of hpcoll 0.1 is now <hpcoll/policies.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/policies.hpp>
