// SPDX-License-Identifier: BSD-3-Clause
// Forwarding header: <hpcoll/machine_file.hpp> of hpcoll 0.1 is now <hpcoll/select/machine_file.hpp> and <hpcoll/select/machine_file_save.hpp>.
// It stays for one release (docs/architecture.md, "Old paths").
#pragma once

#include <hpcoll/select/machine_file.hpp>
#include <hpcoll/select/machine_file_save.hpp>
