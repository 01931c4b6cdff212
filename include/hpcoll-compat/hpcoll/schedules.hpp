// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/schedules.hpp> of hpcoll 0.1 is now <hpcoll/schedule/all.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/schedule/all.hpp>
