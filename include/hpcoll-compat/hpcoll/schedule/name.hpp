// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/schedule/name.hpp> of hpcoll 0.1 is now <hpcoll/schedule/properties.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/schedule/properties.hpp>
