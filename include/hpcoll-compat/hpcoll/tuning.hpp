// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/tuning.hpp> of hpcoll 0.1 is now <hpcoll/select/tuning.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/select/tuning.hpp>
