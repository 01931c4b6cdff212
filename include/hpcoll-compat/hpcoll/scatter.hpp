// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/scatter.hpp> of hpcoll 0.1 is now <hpcoll/collectives/scatter.hpp> and <hpcoll/select/automatic.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/collectives/scatter.hpp>
#include <hpcoll/select/automatic.hpp>
