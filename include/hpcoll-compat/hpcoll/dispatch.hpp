// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/dispatch.hpp> of hpcoll 0.1 is now <hpcoll/select/dispatch.hpp> and <hpcoll/exec/counters.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/select/dispatch.hpp>
#include <hpcoll/exec/counters.hpp>
