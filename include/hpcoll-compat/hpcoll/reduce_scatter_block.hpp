// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/reduce_scatter_block.hpp> of hpcoll 0.1 is now <hpcoll/collectives/reduce_scatter_block.hpp> and <hpcoll/select/automatic.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/collectives/reduce_scatter_block.hpp>
#include <hpcoll/select/automatic.hpp>
