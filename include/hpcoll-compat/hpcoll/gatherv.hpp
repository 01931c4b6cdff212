// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/gatherv.hpp> of hpcoll 0.1 is now <hpcoll/collectives/gatherv.hpp> and <hpcoll/select/automatic.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/collectives/gatherv.hpp>
#include <hpcoll/select/automatic.hpp>
